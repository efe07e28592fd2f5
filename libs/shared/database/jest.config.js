const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-database', __dirname);
