const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-errors', __dirname);
