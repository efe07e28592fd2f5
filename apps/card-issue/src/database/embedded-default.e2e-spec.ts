import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { SECRET, spawnCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';
import { DEMO_USER_ID } from '../reference-services/users/demo-user';

const API = '/api/v1/card-issue';

interface ServedDocument {
  paths: Record<string, { post?: { requestBody: { content: Record<string, OperationContent> } } }>;
}
interface OperationContent {
  examples: Record<string, { value: unknown }>;
}

/** The first example of the card issue POST in the document the service serves to Swagger UI. */
async function firstExample(url: string): Promise<unknown> {
  const document = (await request(url).get('/docs-json')).body as ServedDocument;
  const content = document.paths[API].post?.requestBody.content['application/json'];
  return Object.values(content?.examples ?? {})[0]?.value;
}

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
      // Swagger UI's "Try it out" sends the operation's first example: its owner, the demo user,
      // exists on the embedded database, so the card is issued (not stored as FAILED).
      const tried = await request(first.url)
        .post(API)
        .send((await firstExample(first.url)) as object);
      expect(tried.status).toBe(201);
      expect(tried.body).toMatchObject({ status: 'CREATED', failureReason: null });
      const owner = await createUser(first.url);
      const created = await request(first.url).post(API).send(selfVirtual(owner));
      expect(created.status).toBe(201);
      requestId = (created.body as { requestId: string }).requestId;
    } finally {
      await first.stop('SIGTERM');
    }
    const second = await spawnCardIssue(env);
    try {
      // The demo user is there once, after a second start as after the first.
      const demo = await request(second.url)
        .get(`/user-api/api/v1/users/${DEMO_USER_ID}`)
        .set('X-secret', SECRET);
      expect(demo.status).toBe(200);
      const read = await request(second.url).get(`${API}/${requestId}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ requestId, status: 'CREATED' });
    } finally {
      await second.stop('SIGTERM');
    }
  });
});
