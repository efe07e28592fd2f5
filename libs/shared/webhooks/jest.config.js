const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-webhooks', __dirname);
