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
