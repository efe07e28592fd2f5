import { IdempotencyKeys, Queryable } from './idempotency-keys';
import { hashBody } from './request-hash';

const BODY = { a: 1 };

/** A key table whose key is held by someone else, for `leaseLeftMs` from the first look. */
class HeldElsewhere implements Queryable {
  readonly looks: number[] = [];

  constructor(private readonly leaseLeftMs: number) {}

  query<T>(): Promise<T> {
    const now = Date.now();
    this.looks.push(now);
    const left = Math.max(0, this.leaseLeftMs - now);
    return Promise.resolve([
      {
        claimed: false,
        requestHash: hashBody(BODY),
        responseStatus: null,
        responseBody: null,
        leaseLeftMs: left,
      },
    ] as T);
  }
}

describe('IdempotencyKeys waiting', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('looks again after 50 ms doubling to 1 s, and answers in progress with the lease left', async () => {
    const db = new HeldElsewhere(60_000);
    const keys = new IdempotencyKeys(db, {
      table: 't',
      leaseMs: 5_000,
      waitMs: 10_000,
      ttlHours: 24,
    });
    const claim = keys.claim('k', BODY);
    await jest.advanceTimersByTimeAsync(10_000);
    await expect(claim).resolves.toEqual({ kind: 'in-progress', retryAfterSeconds: 50 });
    expect(db.looks.slice(0, 7)).toEqual([0, 50, 150, 350, 750, 1_550, 2_550]);
    expect(db.looks).toHaveLength(15); // 0 .. 9,550 ms, and one at the end of the wait
  });

  it('looks right after the lease ends, not a full pause later', async () => {
    const db = new HeldElsewhere(300);
    const keys = new IdempotencyKeys(db, {
      table: 't',
      leaseMs: 5_000,
      waitMs: 1_000,
      ttlHours: 24,
    });
    const claim = keys.claim('k', BODY);
    await jest.advanceTimersByTimeAsync(1_000);
    await claim;
    expect(db.looks.slice(0, 5)).toEqual([0, 50, 150, 310, 320]);
  });

  it('with no wait, answers in progress at once, Retry-After at least 1', async () => {
    const db = new HeldElsewhere(200);
    const keys = new IdempotencyKeys(db, { table: 't', leaseMs: 5_000, waitMs: 0, ttlHours: 24 });
    await expect(keys.claim('k', BODY)).resolves.toEqual({
      kind: 'in-progress',
      retryAfterSeconds: 1,
    });
    expect(db.looks).toHaveLength(1);
  });
});

/** A key table that grants the claim, then fails every statement as a database gone away would. */
class GoneAfterClaim implements Queryable {
  private claimed = false;

  query<T>(): Promise<T> {
    if (!this.claimed) {
      this.claimed = true;
      return Promise.resolve([{ claimed: true }] as T);
    }
    return Promise.reject(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    );
  }
}

describe('IdempotencyLease renewal during a database outage', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('logs one line per kind per 10 s with the count of the others, and no stack', async () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = {
      error: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }),
    };
    const keys = new IdempotencyKeys(
      new GoneAfterClaim(),
      { table: 't', leaseMs: 300, waitMs: 0, ttlHours: 24 },
      () => new Date(),
      logger,
    );
    const claim = await keys.claim('k', BODY);
    if (claim.kind !== 'held') throw new Error(`expected the key held, got ${claim.kind}`);
    // A renewal every 100 ms, the first failing at 100 ms: its line, then the 99 more failures
    // of its 10 s interval counted in one line when the interval ends (at 10,100 ms).
    await jest.advanceTimersByTimeAsync(10_150);
    await claim.lease.release().catch(() => undefined);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual({
      message: 'Idempotency-Key lease renewal failed: Database unavailable (connection)',
      fields: expect.objectContaining({ kind: 'Database unavailable (connection)', suppressed: 0 }),
    });
    expect(lines[1].fields).toMatchObject({ suppressed: 99 });
    for (const { fields } of lines) expect(fields).not.toHaveProperty('err');
  });
});
