const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-nest', __dirname);
