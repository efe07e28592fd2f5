const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-identifiers', __dirname);
