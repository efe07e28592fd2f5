#!/usr/bin/env node
// `npm run test:pglite`: the tests whose outcome depends on the database engine, run on the
// embedded PGlite (TEST_DATABASE_URL removed) in one Jest invocation. CI runs the whole suite
// on PostgreSQL (`npm test` with TEST_DATABASE_URL) and then this list: what differs between
// the two engines is the database layer, the migrations, the embedded default's start and one
// end-to-end flow per service, so the rest does not run twice. `npm test` without
// TEST_DATABASE_URL still runs every test on PGlite.
//
//   node tools/nx/run-pglite-tests.js [jest options]
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');

/** Path patterns (regular expressions, as Jest takes them) of the engine-dependent tests. */
const PGLITE_TESTS = [
  // The database layer: the embedded server, its wire-protocol queue, options, migrations.
  'libs/shared/database/src/',
  'libs/shared/idempotency/src/idempotency-keys\\.integration-spec\\.ts$',
  'apps/client-registration/src/clients/clients\\.repository\\.integration-spec\\.ts$',
  // Migrations and entities agree; the migration commands; the embedded default's start.
  'apps/[^/]+/src/database/schema-drift\\.integration-spec\\.ts$',
  'apps/[^/]+/src/database/migration-commands\\.e2e-spec\\.ts$',
  'apps/[^/]+/src/database/embedded-default\\.e2e-spec\\.ts$',
  // One end-to-end flow per service, and health with the database up and gone.
  'apps/card-issue/src/card-issues/card-issues\\.e2e-spec\\.ts$',
  'apps/client-registration/src/clients/clients\\.e2e-spec\\.ts$',
  'apps/[^/]+/src/app\\.e2e-spec\\.ts$',
  // Outages: how a lost connection shows differs between a server and the embedded one.
  'tools/robustness/src/database-outage\\.e2e-spec\\.ts$',
];

function main(argv) {
  const env = { ...process.env };
  delete env.TEST_DATABASE_URL;
  const child = spawn(
    process.execPath,
    [
      '--experimental-vm-modules',
      join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
      '--config',
      join(ROOT, 'jest.config.js'),
      ...argv,
      ...PGLITE_TESTS,
    ],
    { cwd: ROOT, stdio: 'inherit', env },
  );
  child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (require.main === module) main(process.argv.slice(2));

module.exports = { PGLITE_TESTS };
