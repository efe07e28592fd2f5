const { projectJestConfig } = require('../../jest.preset');

module.exports = projectJestConfig('client-registration', __dirname);
