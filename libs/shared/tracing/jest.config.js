const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-tracing', __dirname);
