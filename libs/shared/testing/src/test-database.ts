import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgres, assertTestDatabase, databaseName } from '@bank/shared/database';

export interface TestDatabase {
  url: string;
  /** 'postgres' for a real server, 'pglite' for the embedded one. */
  kind: 'postgres' | 'pglite';
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test file. With TEST_DATABASE_URL (a real PostgreSQL
 * whose database name contains "test") a new database is created on that server and
 * dropped afterwards; without it an in-memory embedded PostgreSQL is started.
 */
export async function createTestDatabase(label = 'db'): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const embedded = await EmbeddedPostgres.start('memory://', 64, 'test', await freshCluster());
    return { url: embedded.url, kind: 'pglite', drop: () => embedded.stop() };
  }
  assertTestDatabase(adminUrl, { ...process.env, NODE_ENV: 'test' });
  const name = `test_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'postgres',
    drop: async () => {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(
          `DROP DATABASE IF EXISTS "${databaseName(url.toString())}" WITH (FORCE)`,
        );
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * The empty cluster every embedded test database starts from. PGlite's initdb costs seconds of
 * CPU per database; its dump loads in a fraction of that, so it is made once per PGlite version
 * and kept in the temporary directory (written aside, then renamed: parallel Jest workers
 * never read half a file).
 */
async function freshCluster(): Promise<Blob> {
  const file = join(tmpdir(), `bank-backoffice-pglite-${pgliteVersion()}-cluster.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const dump = await EmbeddedPostgres.dumpFreshCluster();
    const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(aside, Buffer.from(await dump.arrayBuffer()));
    await rename(aside, file);
    return dump;
  }
}

function pgliteVersion(): string {
  // The entry point is <package>/dist/index.*; package.json is not in the package's exports.
  const root = dirname(dirname(require.resolve('@electric-sql/pglite')));
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
}
