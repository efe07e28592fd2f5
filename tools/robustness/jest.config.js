const { projectJestConfig } = require('../../jest.preset');
module.exports = projectJestConfig('robustness', __dirname);
