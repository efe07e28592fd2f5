const { projectJestConfig } = require('../../jest.preset');
module.exports = projectJestConfig('monitoring', __dirname);
