import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@bank/shared/testing';
import {
  IdempotencyKeys,
  IdempotencyLease,
  IdempotencyLeaseLostError,
  Queryable,
} from './idempotency-keys';
import { hashBody } from './request-hash';

const TABLE = 'test_idempotency_keys';
const BODY = { amount: 10, currency: 'RUB' };
const RESPONSE = { status: 201, body: '{"id":"42","b":1,"a":2}' };

/** Runs statements on one pg client, counting the ones on the key table. */
function queryable(client: Client): Queryable & { count: number } {
  const q = {
    count: 0,
    async query<T>(sql: string, parameters?: unknown[]): Promise<T> {
      if (sql.includes(TABLE)) q.count++;
      return (await client.query(sql, parameters)).rows as T;
    },
  };
  return q;
}

describe('IdempotencyKeys (integration)', () => {
  let db: TestDatabase;
  let client: Client;
  let sql: Queryable & { count: number };
  const keysWith = (leaseMs: number, waitMs: number) =>
    new IdempotencyKeys(sql, { table: TABLE, leaseMs, waitMs, ttlHours: 24 });
  const held = async (keys: IdempotencyKeys, key: string, body: unknown = BODY) => {
    const claim = await keys.claim(key, body);
    if (claim.kind !== 'held') throw new Error(`expected held, got ${claim.kind}`);
    return claim.lease;
  };
  const inTransaction = async (work: (tx: Queryable) => Promise<void>) => {
    await client.query('BEGIN');
    try {
      await work(sql);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase('idempotency_lib');
    client = new Client({ connectionString: db.url });
    await client.connect();
    await client.query(`CREATE TABLE ${TABLE} (
      key varchar(255) PRIMARY KEY, request_hash char(64) NOT NULL, holder uuid NULL,
      locked_until timestamptz NULL, response_status smallint NULL, response_body text NULL,
      created_at timestamptz NOT NULL)`);
    sql = queryable(client);
  });

  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  const leases: IdempotencyLease[] = [];
  afterEach(async () => {
    // Stops every renewal timer a test left running.
    for (const lease of leases.splice(0)) await lease.release().catch(() => undefined);
  });

  it('holds a free key, stores the response text with the work and replays it byte for byte', async () => {
    const keys = keysWith(5_000, 1_000);
    const lease = await held(keys, 'k1');
    leases.push(lease);
    await inTransaction((tx) => lease.complete(tx, RESPONSE));
    expect(await keys.claim('k1', { currency: 'RUB', amount: 10 })).toEqual({
      kind: 'replay',
      response: RESPONSE,
    });
    expect(await keys.claim('k1', { ...BODY, amount: 11 })).toEqual({ kind: 'reused' });
  });

  it('answers in progress, with the lease left as Retry-After, while a live holder works', async () => {
    const keys = keysWith(30_000, 200);
    leases.push(await held(keys, 'k2'));
    const claim = await keys.claim('k2', BODY);
    expect(claim.kind).toBe('in-progress');
    expect(claim.kind === 'in-progress' && claim.retryAfterSeconds).toBeGreaterThanOrEqual(29);
  });

  it('a key whose holder died is taken over once its lease ran out, the wait looking a few times, not in a loop', async () => {
    // A holder that dies renews nothing: its row stays as a killed process leaves it.
    await client.query(
      `INSERT INTO ${TABLE} (key, request_hash, holder, locked_until, created_at)
       VALUES ('k3', $1, gen_random_uuid(), clock_timestamp() + interval '1500 ms', now())`,
      [hashBody(BODY)],
    );
    const keys = keysWith(5_000, 10_000);
    const before = sql.count;
    const lease = await held(keys, 'k3');
    leases.push(lease);
    // 50, 100, 200, 400, 800 ms pauses, then the end of the lease: 7 looks at most.
    expect(sql.count - before).toBeLessThanOrEqual(8);
  });

  it('a holder that stalled past its lease cannot store its response once another took the key', async () => {
    const keys = keysWith(1_000, 5_000);
    const stalled = await held(keys, 'k4');
    leases.push(stalled);
    // The stalled holder's renewals stop reaching the database (an event loop blocked, say).
    (stalled as unknown as { stop(): void }).stop();
    const successor = await held(keys, 'k4');
    leases.push(successor);
    await expect(inTransaction((tx) => stalled.complete(tx, RESPONSE))).rejects.toBeInstanceOf(
      IdempotencyLeaseLostError,
    );
    await inTransaction((tx) => successor.complete(tx, { status: 201, body: '{"second":true}' }));
    expect(await keys.claim('k4', BODY)).toEqual({
      kind: 'replay',
      response: { status: 201, body: '{"second":true}' },
    });
  });

  it('renews the lease while the holder works, so nobody takes it over', async () => {
    const keys = keysWith(1_000, 1_500);
    const lease = await held(keys, 'k5');
    leases.push(lease);
    const claim = await keys.claim('k5', BODY);
    expect(claim.kind).toBe('in-progress');
  });

  it('a released key is free again at once; purge forgets old keys but not held ones', async () => {
    const keys = keysWith(5_000, 1_000);
    await (await held(keys, 'k6')).release();
    const again = await held(keys, 'k6', { other: true });
    leases.push(again);

    await client.query(
      `INSERT INTO ${TABLE} (key, request_hash, response_status, response_body, created_at)
       VALUES ('old', repeat('0', 64), 201, '{}', now() - interval '25 hours')`,
    );
    await client.query(
      `UPDATE ${TABLE} SET created_at = now() - interval '25 hours' WHERE key = 'k6'`,
    );
    expect(await keys.purgeExpired()).toBe(1);
    const { rows } = await client.query(`SELECT key FROM ${TABLE} WHERE key IN ('old', 'k6')`);
    expect(rows).toEqual([{ key: 'k6' }]);
  });
});
