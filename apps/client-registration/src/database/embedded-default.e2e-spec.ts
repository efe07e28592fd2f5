import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { registration } from '../../test/client-request.fixture';
import { spawnClientRegistration } from '../../test/client-registration.harness';

// `npm start` without DATABASE_URL: the service starts its own embedded PostgreSQL (PGlite) in
// PGLITE_DATA_DIR, migrates it, and what it stored is there after a restart.
describe('the embedded database default (process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'client-registration-embedded-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on PGLITE_DATA_DIR, registers a client and reads it back after a restart', async () => {
    // As `npm start` runs it (NODE_ENV=test would only take databases named for tests).
    const env = { PGLITE_DATA_DIR: dataDir, NODE_ENV: 'development' };
    const first = await spawnClientRegistration(env);
    let id: string;
    try {
      const created = await request(first.url).post('/api/clients').send(registration());
      expect(created.status).toBe(201);
      id = (created.body as { id: string }).id;
    } finally {
      await first.stop('SIGTERM');
    }
    const second = await spawnClientRegistration(env);
    try {
      const read = await request(second.url).get(`/api/clients/${id}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id, lastName: 'Петров' });
    } finally {
      await second.stop('SIGTERM');
    }
  });
});
