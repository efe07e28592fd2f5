// Every project's tests in one Jest invocation, for a targeted run by path
// (`node --experimental-vm-modules node_modules/jest/bin/jest.js <paths>`); `npm test` runs them
// through Nx per project and tier (tools/nx/test-tiers.js).
module.exports = {
  testTimeout: 60_000,
  projects: [
    '<rootDir>/libs/shared/*/jest.config.js',
    '<rootDir>/apps/*/jest.config.js',
    '<rootDir>/tools/*/jest.config.js',
  ],
};
