const { projectJestConfig } = require('../../jest.preset');

module.exports = projectJestConfig('card-issue', __dirname);
