import request from 'supertest';
import { hashBody } from '@bank/shared/idempotency';
import { RunningTestService } from '@bank/shared/testing';
import { SECRET, startCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';

const API = '/api/v1/card-issue';

describe('Idempotency-Key of POST /api/v1/card-issue (e2e)', () => {
  let t: RunningTestService;
  let owner: string;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'card_issue_idempotency',
      env: {
        X_SECRET: SECRET,
        SCHEDULER_ENABLED: 'false',
        IDEMPOTENCY_LEASE_MS: '2000',
        IDEMPOTENCY_WAIT_MS: '6000',
      },
    });
    owner = await createUser(t.url);
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Leaves key `key` as a process killed while holding it does: a lease it renews no more. */
  const leftByKilledHolder = (key: string, body: unknown, leaseLeftMs: number) =>
    t.dataSource.query(
      `INSERT INTO card_issue_idempotency_keys (key, request_hash, holder, locked_until, created_at)
       VALUES ($1, $2, gen_random_uuid(), clock_timestamp() + $3::int * interval '1 millisecond', now())`,
      [key, hashBody(body), leaseLeftMs],
    );

  it('replays the first answer byte for byte', async () => {
    const body = selfVirtual(owner);
    const first = await request(t.url).post(API).set('Idempotency-Key', 'bytes-1').send(body);
    const replay = await request(t.url).post(API).set('Idempotency-Key', 'bytes-1').send(body);
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(replay.text).toBe(first.text);
  });

  it('takes over a key whose holder was killed once its lease runs out, looking a few times, not in a loop', async () => {
    const body = selfVirtual(owner);
    await leftByKilledHolder('killed-1', body, 1_500);
    const keyQueries: string[] = [];
    const query = t.dataSource.query.bind(t.dataSource);
    // A transaction's statements come here too, with its query runner as the third argument.
    const spy = jest.spyOn(t.dataSource, 'query').mockImplementation((sql, ...rest) => {
      if (sql.includes('card_issue_idempotency_keys')) keyQueries.push(sql);
      return query(sql, ...rest);
    });
    try {
      const res = await request(t.url).post(API).set('Idempotency-Key', 'killed-1').send(body);
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.body).toMatchObject({ status: 'CREATED' });
    } finally {
      spy.mockRestore();
    }
    // Looks after 50, 100, 200, 400, 800 ms and at the lease's end (7 at most), then the
    // response (today's 25 ms polling made some 120 statements of this 1.5 s).
    expect(keyQueries.length).toBeLessThanOrEqual(9);
    const stored = await t.dataSource.query(
      `SELECT response_body AS body, holder FROM card_issue_idempotency_keys WHERE key = 'killed-1'`,
    );
    expect(stored).toEqual([{ body: expect.stringContaining('"status":"CREATED"'), holder: null }]);
  });

  it('answers 409 with Retry-After while a live holder works past the wait', async () => {
    const body = selfVirtual(owner);
    await leftByKilledHolder('live-1', body, 60_000); // as good as a holder that renews its lease
    const res = await request(t.url).post(API).set('Idempotency-Key', 'live-1').send(body);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 409, error: 'Conflict' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(50);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('the same key with another body is 409 at once while its holder works', async () => {
    await leftByKilledHolder('other-1', selfVirtual(owner), 60_000);
    const other = selfVirtual(owner, {
      cardHolder: { userId: owner, nameless: false, embossedName: 'OTHER NAME' },
    });
    const res = await request(t.url).post(API).set('Idempotency-Key', 'other-1').send(other);
    expect(res.status).toBe(409);
    expect(res.headers['retry-after']).toBeUndefined();
  });
});
