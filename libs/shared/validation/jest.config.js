const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-validation', __dirname);
