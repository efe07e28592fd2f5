const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-metrics', __dirname);
