const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-error-shape', __dirname);
