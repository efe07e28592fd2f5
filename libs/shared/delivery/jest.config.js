const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-delivery', __dirname);
