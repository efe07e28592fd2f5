import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { EmbeddedPostgres } from './embedded-postgres';

describe('EmbeddedPostgres', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pglite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps data in its directory across a restart', async () => {
    const first = await EmbeddedPostgres.start(dir, 4);
    const pool = new Pool({ connectionString: first.url, max: 2 });
    await pool.query(
      'CREATE TABLE kept (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text NOT NULL)',
    );
    await pool.query(`INSERT INTO kept (note) VALUES ('survives')`);
    await pool.end();
    await first.stop();

    const second = await EmbeddedPostgres.start(dir, 4);
    const again = new Pool({ connectionString: second.url, max: 2 });
    const { rows } = await again.query('SELECT note FROM kept');
    await again.end();
    await second.stop();
    expect(rows).toEqual([{ note: 'survives' }]);
  });

  it('starts from a dumped fresh cluster as from its own initdb', async () => {
    const template = await EmbeddedPostgres.dumpFreshCluster();
    const first = await EmbeddedPostgres.start('memory://', 4, 'postgres', template);
    const pool = new Pool({ connectionString: first.url, max: 2 });
    await pool.query('CREATE TABLE only_here (n int)');
    await pool.end();
    await first.stop();
    // A second database from the same template is empty: nothing written to one reaches it.
    const second = await EmbeddedPostgres.start('memory://', 4, 'postgres', template);
    const again = new Pool({ connectionString: second.url, max: 2 });
    try {
      const { rows } = await again.query<{ tables: number }>(
        `SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname = 'public'`,
      );
      expect(rows).toEqual([{ tables: 0 }]);
    } finally {
      await again.end();
      await second.stop();
    }
  });

  it('serves a pool of parallel clients with transactions, one at a time, without mixing them', async () => {
    const db = await EmbeddedPostgres.start('memory://', 20);
    const pool = new Pool({ connectionString: db.url, max: 10 });
    try {
      await pool.query('CREATE TABLE counter (n int NOT NULL)');
      await pool.query('INSERT INTO counter VALUES (0)');
      await Promise.all(
        Array.from({ length: 40 }, async () => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const { rows } = await client.query<{ n: number }>('SELECT n FROM counter');
            await client.query('UPDATE counter SET n = $1', [rows[0].n + 1]);
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        }),
      );
      const { rows } = await pool.query('SELECT n FROM counter');
      // Read-modify-write without locks only adds up if transactions never interleave.
      expect(rows[0].n).toBe(40);
    } finally {
      await pool.end();
      await db.stop();
    }
  });

  it('keeps the extended-protocol exchange of each connection whole while others query and hold transactions', async () => {
    const db = await EmbeddedPostgres.start('memory://', 24);
    const pool = new Pool({ connectionString: db.url, max: 10 });
    try {
      await pool.query('CREATE TABLE rows (id int PRIMARY KEY, n int NOT NULL)');
      await pool.query('INSERT INTO rows SELECT g, 0 FROM generate_series(1, 10) g');
      const answers = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          if (i % 5 === 0) {
            const client = await pool.connect();
            try {
              await client.query('START TRANSACTION');
              await client.query('SELECT n FROM rows WHERE id = $1 FOR UPDATE', [(i % 10) + 1]);
              await client.query('UPDATE rows SET n = n + 1 WHERE id = $1', [(i % 10) + 1]);
              await client.query('COMMIT');
            } finally {
              client.release();
            }
            return i;
          }
          // Parameterised: Parse/Bind/Execute/Sync. Interleaved with another connection's,
          // a query would get the other's answer, an error, or no answer at all.
          const { rows } = await pool.query<{ n: number }>('SELECT $1::int AS n', [i]);
          return rows[0].n;
        }),
      );
      expect(answers).toEqual(Array.from({ length: 300 }, (_, i) => i));
      const { rows } = await pool.query<{ total: number }>('SELECT sum(n)::int AS total FROM rows');
      expect(rows[0].total).toBe(60);
    } finally {
      await pool.end();
      await db.stop();
    }
  });
});
