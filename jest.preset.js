// Shared Jest settings for every project: SWC transpiles TypeScript with the decorator
// metadata NestJS, class-validator and TypeORM need; tsconfig paths become module names.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');
const { testMatch } = require('./tools/nx/test-tiers');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace(/[/.]/g, '\\$&')}$`,
    path.join(__dirname, target),
  ]),
);

/** @param {string} displayName @param {string} rootDir */
function projectJestConfig(displayName, rootDir) {
  return {
    displayName,
    rootDir,
    testEnvironment: 'node',
    // Process and database tests on 2 shared cores (the root jest.config.js sets the same).
    testTimeout: 60_000,
    // One tier (JEST_TIER, set by the Nx test:<tier> targets) or every tier.
    testMatch: testMatch(process.env.JEST_TIER),
    moduleFileExtensions: ['ts', 'js', 'json'],
    moduleNameMapper,
    // A few dependencies ship ESM only; Jest on Node 20 cannot require() them, so SWC
    // turns them into CommonJS.
    transformIgnorePatterns: ['/node_modules/(?!(content-disposition|jose|cockatiel)/)'],
    transform: {
      '/node_modules/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
      '^.+\\.ts$': [
        '@swc/jest',
        {
          jsc: {
            parser: { syntax: 'typescript', decorators: true },
            transform: {
              legacyDecorator: true,
              decoratorMetadata: true,
              useDefineForClassFields: false,
            },
            target: 'es2022',
            keepClassNames: true,
          },
          module: { type: 'commonjs' },
          sourceMaps: 'inline',
        },
      ],
    },
    setupFiles: [path.join(__dirname, 'jest.setup.js')],
  };
}

module.exports = { projectJestConfig };
