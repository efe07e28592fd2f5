// The failover tier (`npm run test:failover`): `*.failover-spec.ts` files, which no tier of
// `npm test` matches (tools/nx/test-tiers.js), each starting a highly available PostgreSQL.
const { projectJestConfig } = require('../../jest.preset');
module.exports = {
  ...projectJestConfig('failover', __dirname),
  testMatch: ['<rootDir>/src/**/*.failover-spec.ts'],
  testTimeout: 600_000,
};
