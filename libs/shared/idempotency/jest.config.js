const { projectJestConfig } = require('../../../jest.preset');

module.exports = projectJestConfig('shared-idempotency', __dirname);
