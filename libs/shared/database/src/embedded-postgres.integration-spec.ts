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
});
