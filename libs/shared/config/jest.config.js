const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-config', __dirname);
