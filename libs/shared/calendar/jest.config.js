const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-calendar', __dirname);
