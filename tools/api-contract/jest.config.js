const { projectJestConfig } = require('../../jest.preset');

module.exports = projectJestConfig('api-contract', __dirname);
