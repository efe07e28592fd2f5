const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-openapi', __dirname);
