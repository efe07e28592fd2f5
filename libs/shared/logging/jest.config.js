const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-logging', __dirname);
