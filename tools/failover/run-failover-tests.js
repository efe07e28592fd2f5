#!/usr/bin/env node
// `npm run test:failover`: the failover tier, tools/failover/src/*.failover-spec.ts, one file
// at a time (each starts a highly available PostgreSQL: etcd, Patroni, HAProxy, PgBouncer).
// Without Debian's patroni, etcd-server, haproxy and pgbouncer the suite prints why it is
// skipped; under CI=true it fails instead.
//
//   node tools/failover/run-failover-tests.js [jest options]
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');

const child = spawn(
  process.execPath,
  [
    '--experimental-vm-modules',
    join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
    '--config',
    join(__dirname, 'jest.failover.config.js'),
    '--runInBand',
    ...process.argv.slice(2),
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
