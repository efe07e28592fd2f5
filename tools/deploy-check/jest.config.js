const { projectJestConfig } = require('../../jest.preset');

module.exports = projectJestConfig('deploy-check', __dirname);
