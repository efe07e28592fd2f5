import { outboxRetryDelayMs } from './outbox.backoff';

describe('outboxRetryDelayMs', () => {
  it('waits the base delay after the first attempt, then doubles per attempt', () => {
    expect([1, 2, 3, 4, 5].map((attempts) => outboxRetryDelayMs(attempts, 500, 60_000))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000,
    ]);
  });

  it('never waits longer than the maximum', () => {
    expect(outboxRetryDelayMs(7, 500, 60_000)).toBe(32_000);
    expect(outboxRetryDelayMs(8, 500, 60_000)).toBe(60_000);
    expect(outboxRetryDelayMs(50, 500, 60_000)).toBe(60_000);
  });

  it('is the maximum at once when the base exceeds it', () => {
    expect(outboxRetryDelayMs(1, 5_000, 1_000)).toBe(1_000);
  });
});
