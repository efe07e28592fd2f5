const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-auth', __dirname);
