// `npm test` runs every project's tests in one Jest invocation (see jest.preset.js).
module.exports = {
  testTimeout: 60_000,
  projects: [
    '<rootDir>/libs/shared/*/jest.config.js',
    '<rootDir>/apps/*/jest.config.js',
    '<rootDir>/tools/deploy-check/jest.config.js',
    '<rootDir>/tools/api-contract/jest.config.js',
    '<rootDir>/tools/robustness/jest.config.js',
  ],
};
