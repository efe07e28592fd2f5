import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  closedPort,
  createTestDatabase,
  RunningTestService,
  TestDatabase,
} from '@bank/shared/testing';
import { SECRET, startCardIssue } from '../../test/card-issue.harness';
import { selfPlastic, selfVirtual } from '../../test/card-issue-requests.fixture';
import { aUser, createUser } from '../../test/users.fixture';

const API = '/api/v1/card-issue';

/**
 * A downstream service that is down gives 503 naming it, and nothing is stored. The
 * "down" services are loopback ports nobody listens on; the rest is this deployment's own.
 */
describe('card issue API with a downstream service down (e2e)', () => {
  let db: TestDatabase;
  let healthy: RunningTestService;
  const apps: RunningTestService[] = [];
  let owner: string;

  const boot = async (overrides: Record<string, string>) => {
    const t = await startCardIssue({
      db,
      env: {
        X_SECRET: SECRET,
        SCHEDULER_ENABLED: 'false',
        DOWNSTREAM_TIMEOUT_MS: '300',
        DOWNSTREAM_RETRIES: '1',
        DOWNSTREAM_RETRY_DELAY_MS: '10',
        ...overrides,
      },
    });
    apps.push(t);
    return t;
  };

  const stored = async () =>
    Number(
      (
        await healthy.app
          .get(DataSource)
          .query('SELECT count(*)::int AS n FROM card_issue_requests')
      )[0].n,
    );

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_outage');
    healthy = await boot({});
    owner = await createUser(healthy.url);
  });

  afterAll(async () => {
    for (const t of apps) await t.close();
    await db?.drop();
  });

  it('user service down: 503 naming it, nothing stored', async () => {
    const down = await boot({ USER_API_URL: `http://127.0.0.1:${await closedPort()}/user-api` });
    const res = await request(down.url).post(API).send(selfVirtual(owner));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 503, error: 'Service Unavailable' });
    expect(res.body.message).toContain('user service');
    expect(await stored()).toBe(0);
  });

  it('branch service down: 503 naming it, nothing stored', async () => {
    const down = await boot({
      BRANCH_API_URL: `http://127.0.0.1:${await closedPort()}/branch-api`,
    });
    const res = await request(down.url)
      .post(API)
      .send(selfPlastic(owner, { toBranch: { id: '0001' } }));
    expect(res.status).toBe(503);
    expect(res.body.message).toContain('branch service');
    expect(await stored()).toBe(0);
  });

  it('an Idempotency-Key is given back after a 503, so the retry goes through', async () => {
    const down = await boot({ USER_API_URL: `http://127.0.0.1:${await closedPort()}/user-api` });
    const body = {
      request: {
        cardOwner: owner,
        formFactor: 'VIRTUAL',
        cardHolder: { nameless: false, user: aUser() },
      },
    };
    expect(
      (await request(down.url).post(API).set('Idempotency-Key', 'retry-after-503').send(body))
        .status,
    ).toBe(503);
    const retry = await request(healthy.url)
      .post(API)
      .set('Idempotency-Key', 'retry-after-503')
      .send(body);
    expect(retry.status).toBe(201);
    expect(retry.body.status).toBe('CREATED');
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await stored()).toBe(1);
  });

  it('operation service down: the request is still CREATED; its operation waits in the outbox', async () => {
    const down = await boot({
      OPERATION_API_URL: `http://127.0.0.1:${await closedPort()}/operation-api`,
      OUTBOX_RETRY_BASE_MS: '60000',
    });
    const before = await stored();
    const res = await request(down.url).post(API).send(selfVirtual(owner));
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('CREATED');
    expect(await stored()).toBe(before + 1);
    const pending = await down.app
      .get(DataSource)
      .query(`SELECT type FROM outbox_messages WHERE request_id = $1 AND state = 'PENDING'`, [
        res.body.requestId,
      ]);
    expect(pending).toEqual([{ type: 'operation.create' }]);
  });
});
