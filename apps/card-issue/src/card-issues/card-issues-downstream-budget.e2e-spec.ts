import request from 'supertest';
import {
  createTestDatabase,
  figureDatabase,
  FiguresTable,
  formatMs,
  RunningTestService,
  sleep,
  TestDatabase,
} from '@bank/shared/testing';
import { BACKGROUND_OFF, startCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { json, StubServer } from '../../test/stub-server';
import { aUser } from '../../test/users.fixture';

const API = '/api/v1/card-issue';
const OWNER = 'XOWNR1';

/**
 * The downstream budget (issue 13, item 6): one deadline per incoming request across every
 * attempt, the user service's Retry-After honoured when it fits and passed on when not, and a
 * circuit breaker that fails a dead service fast and closes by itself, and that a burst of slow
 * calls does not open. The user service is a stub (it counts hits); everything else is this
 * deployment's own, over real HTTP.
 */
describe('card issue API with a failing user service: budget, Retry-After, breaker (e2e)', () => {
  const stub = new StubServer();
  let stubUrl: string;
  let db: TestDatabase;
  const apps: RunningTestService[] = [];
  const figures = new FiguresTable('Downstream budget, Retry-After, breaker');
  /** Card requests stored, to show that no failed attempt stored one. */
  const storedRequests = async (): Promise<number> =>
    Number((await apps[0].dataSource.query('SELECT count(*) AS n FROM card_issue_requests'))[0].n);
  const row = async (
    scenario: string,
    run: { sent: string; answered: string; storedBefore: number; recovered: string },
  ) =>
    figures.add({
      scenario,
      database: figureDatabase(db),
      sent: run.sent,
      answered: run.answered,
      stored: `${(await storedRequests()) - run.storedBefore} request(s)`,
      lost: 0,
      orphans: 0,
      recovered: run.recovered,
    });

  const userHits = () => stub.hits.filter((hit) => hit.url.startsWith('/user-api/')).length;
  const healthy = () =>
    stub.reset((req, res) => json(res, 200, { ...aUser(), id: req.url?.split('/').pop() }));

  /** A card-issue instance whose user service is the stub. */
  const boot = async (env: Record<string, string>) => {
    const t = await startCardIssue({
      db,
      env: {
        ...BACKGROUND_OFF,
        USER_API_URL: `${stubUrl}/user-api`,
        DOWNSTREAM_RETRY_DELAY_MS: '10',
        ...env,
      },
    });
    apps.push(t);
    return t;
  };

  beforeAll(async () => {
    stubUrl = await stub.start();
    db = await createTestDatabase('card_issue_budget');
  });

  afterAll(async () => {
    figures.print();
    for (const t of apps) await t.close();
    await stub.stop();
    await db?.drop();
  });

  it('a user service that never answers: 503 with Retry-After once the budget is spent, before one timeout would have ended', async () => {
    const timeoutMs = 2_000;
    const t = await boot({
      DOWNSTREAM_TIMEOUT_MS: String(timeoutMs),
      DOWNSTREAM_RETRIES: '2',
      DOWNSTREAM_REQUEST_BUDGET_MS: '500',
      DOWNSTREAM_BREAKER_FAILURES: '0',
    });
    stub.reset(() => undefined); // holds every request open
    const before = await storedRequests();
    const started = Date.now();
    const res = await request(t.url).post(API).send(selfVirtual(OWNER));
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.message).toContain('user service');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Without the budget: 3 attempts of 2 s each. With it, the answer beats even one timeout.
    expect(elapsed).toBeLessThan(timeoutMs);
    expect(userHits()).toBe(1);
    await row('User service never answers; timeout 2 s, 2 retries, budget 500 ms', {
      sent: '1 card request',
      answered: `503 + Retry-After: ${res.headers['retry-after']} after ${formatMs(elapsed)} (6.5 s before the budget)`,
      storedBefore: before,
      recovered: 'as soon as the service answers',
    });
  });

  it("honours the user service's Retry-After when it fits the budget", async () => {
    const t = await boot({
      DOWNSTREAM_TIMEOUT_MS: '1000',
      DOWNSTREAM_RETRIES: '2',
      DOWNSTREAM_REQUEST_BUDGET_MS: '5000',
    });
    const at: number[] = [];
    stub.reset((_req, res) => {
      at.push(Date.now());
      if (at.length === 1) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{}');
      } else json(res, 200, { ...aUser(), id: OWNER });
    });
    const before = await storedRequests();
    const res = await request(t.url).post(API).send(selfVirtual(OWNER));
    expect(res.status).toBe(201);
    expect(at).toHaveLength(2);
    await row('User service 503 Retry-After: 1, then healthy; budget 5 s', {
      sent: '1 card request',
      answered: `${res.status}; second call ${formatMs(at[1] - at[0])} after the first`,
      storedBefore: before,
      recovered: 'the 1 s asked for',
    });
    // Backoff alone would have retried after ~10-20 ms; the second call waited the second asked for.
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(950);
  });

  it('a Retry-After longer than the budget: no wait, one call, and our 503 passes it on', async () => {
    const t = await boot({
      DOWNSTREAM_TIMEOUT_MS: '1000',
      DOWNSTREAM_RETRIES: '2',
      DOWNSTREAM_REQUEST_BUDGET_MS: '2000',
    });
    stub.reset((_req, res) =>
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' }).end('{}'),
    );
    const before = await storedRequests();
    const res = await request(t.url).post(API).send(selfVirtual(OWNER));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(userHits()).toBe(1);
    await row('User service 503 Retry-After: 30; budget 2 s', {
      sent: '1 card request',
      answered: `503 + Retry-After: ${res.headers['retry-after']} at once, ${userHits()} call made`,
      storedBefore: before,
      recovered: 'the 30 s asked for, passed on',
    });
  });

  it('a burst of concurrent card requests whose user-service calls pass the attempt timeout does not open the breaker (default breaker settings)', async () => {
    // The busy second: both services and the scheduler on a loaded machine, and the user
    // service's answers to a burst of requests come after the 1 s attempt timeout. A count of
    // consecutive failures opened the breaker at the fifth, and a valid POST was answered 503.
    const burst = 8;
    const t = await boot({ DOWNSTREAM_TIMEOUT_MS: '1000' });
    // The burst's first attempts are never answered, and the retries only once every one of
    // them has timed out: the burst's failures all come before its first success.
    let slow = burst;
    let timedOut = 0;
    const retries: (() => void)[] = [];
    stub.reset((req, res) => {
      const answer = () => json(res, 200, { ...aUser(), id: req.url?.split('/').pop() });
      if (slow > 0) {
        slow--;
        res.on('close', () => {
          if (++timedOut === burst) retries.splice(0).forEach((retry) => retry());
        });
      } else if (timedOut < burst) retries.push(answer);
      else answer();
    });
    const before = await storedRequests();
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: burst }, () => request(t.url).post(API).send(selfVirtual(OWNER))),
    );
    const elapsed = Date.now() - started;
    expect(answers.map((res) => res.status)).toEqual(Array(burst).fill(201));
    expect(userHits()).toBe(2 * burst); // each timed out once, then its retry was answered
    const next = await request(t.url).post(API).send(selfVirtual(OWNER));
    expect(next.status).toBe(201);
    expect(userHits()).toBe(2 * burst + 1);
    await row(`Burst of ${burst} card requests, user service past the 1 s timeout once each`, {
      sent: `${burst} concurrent + 1`,
      answered: `${burst} x 201 after ${formatMs(elapsed)} (one retry each), then 201; breaker closed`,
      storedBefore: before,
      recovered: 'nothing to recover: 8 failed attempts of 16, under the 20 the window needs',
    });
  });

  it('the breaker opens after repeated failures (later calls never reach the service) and closes by itself once it is healthy', async () => {
    const cooldownMs = 1_000;
    const t = await boot({
      DOWNSTREAM_TIMEOUT_MS: '1000',
      DOWNSTREAM_RETRIES: '2',
      DOWNSTREAM_REQUEST_BUDGET_MS: '3000',
      DOWNSTREAM_BREAKER_FAILURES: '3',
      DOWNSTREAM_BREAKER_OPEN_MS: String(cooldownMs),
    });
    stub.reset((_req, res) => json(res, 500, {}));
    const before = await storedRequests();
    expect((await request(t.url).post(API).send(selfVirtual(OWNER))).status).toBe(503);
    expect(userHits()).toBe(3);

    // Open: fails fast without a call, and tells when to come back.
    for (let i = 0; i < 5; i++) {
      const res = await request(t.url).post(API).send(selfVirtual(OWNER));
      expect(res.status).toBe(503);
      expect(Number(res.headers['retry-after'])).toBe(1);
    }
    expect(userHits()).toBe(3);

    // The service recovers; after the cool-down one probe goes through and closes the breaker.
    healthy();
    const healthyAt = Date.now();
    let answered = 0;
    for (let i = 0; i < 40 && answered !== 201; i++) {
      await sleep(100);
      answered = (await request(t.url).post(API).send(selfVirtual(OWNER))).status;
    }
    expect(answered).toBe(201);
    const closedAfter = Date.now() - healthyAt;
    expect(userHits()).toBe(1);
    expect((await request(t.url).post(API).send(selfVirtual(OWNER))).status).toBe(201);
    expect(userHits()).toBe(2);
    await row('User service answers 500; breaker opens at 3 failed attempts, 1 s open', {
      sent: '1 + 5 while open + probes until 201 + 1',
      answered: '503 (3 calls), then 5 x 503 + Retry-After: 1 with 0 calls, then 201',
      storedBefore: before,
      recovered: `first 201 ${formatMs(closedAfter)} after the service was healthy (the cool-down), closed by itself`,
    });
  });
});
