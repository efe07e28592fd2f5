const { projectJestConfig } = require('../../jest.preset');
module.exports = projectJestConfig('failover', __dirname);
