const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-runtime', __dirname);
