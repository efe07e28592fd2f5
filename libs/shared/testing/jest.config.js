const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-testing', __dirname);
