const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-http', __dirname);
