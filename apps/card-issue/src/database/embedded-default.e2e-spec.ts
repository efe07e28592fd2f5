import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { spawnCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';

const API = '/api/v1/card-issue';

// `npm start` without DATABASE_URL: the service starts its own embedded PostgreSQL (PGlite) in
// PGLITE_DATA_DIR, migrates it, and what it stored is there after a restart.
describe('the embedded database default (process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'card-issue-embedded-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on PGLITE_DATA_DIR, issues a card and reads it back after a restart', async () => {
    // As `npm start` runs it (NODE_ENV=test would only take databases named for tests).
    const env = { PGLITE_DATA_DIR: dataDir, NODE_ENV: 'development', SCHEDULER_ENABLED: 'false' };
    const first = await spawnCardIssue(env);
    let requestId: string;
    try {
      const owner = await createUser(first.url);
      const created = await request(first.url).post(API).send(selfVirtual(owner));
      expect(created.status).toBe(201);
      requestId = (created.body as { requestId: string }).requestId;
    } finally {
      await first.stop('SIGTERM');
    }
    const second = await spawnCardIssue(env);
    try {
      const read = await request(second.url).get(`${API}/${requestId}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ requestId, status: 'CREATED' });
    } finally {
      await second.stop('SIGTERM');
    }
  });
});
