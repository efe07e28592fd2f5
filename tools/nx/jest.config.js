const { projectJestConfig } = require('../../jest.preset');

module.exports = projectJestConfig('nx-tools', __dirname);
