import { exponentialBackoffMs, fullJitterBackoffMs } from './backoff';

describe('exponentialBackoffMs', () => {
  it('waits the base delay after the first attempt, then doubles per attempt', () => {
    expect([1, 2, 3, 4, 5].map((attempts) => exponentialBackoffMs(attempts, 500, 60_000))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000,
    ]);
  });

  it('never waits longer than the maximum', () => {
    expect(exponentialBackoffMs(7, 500, 60_000)).toBe(32_000);
    expect(exponentialBackoffMs(8, 500, 60_000)).toBe(60_000);
    expect(exponentialBackoffMs(50, 500, 60_000)).toBe(60_000);
  });

  it('is the maximum at once when the base exceeds it', () => {
    expect(exponentialBackoffMs(1, 5_000, 1_000)).toBe(1_000);
  });
});

describe('fullJitterBackoffMs', () => {
  it('draws below base * 2^(attempts - 1)', () => {
    expect(fullJitterBackoffMs(1, 1_000, 3_600_000, () => 0.999_999)).toBe(999);
    expect(fullJitterBackoffMs(2, 1_000, 3_600_000, () => 0.999_999)).toBe(1_999);
    expect(fullJitterBackoffMs(4, 1_000, 3_600_000, () => 0.5)).toBe(4_000);
  });

  it('can draw zero (full jitter)', () => {
    expect(fullJitterBackoffMs(5, 1_000, 3_600_000, () => 0)).toBe(0);
  });

  it('never exceeds the cap, even for absurd attempt counts', () => {
    expect(fullJitterBackoffMs(15, 1_000, 3_600_000, () => 0.999_999)).toBe(3_599_996);
    expect(fullJitterBackoffMs(2_000, 1_000, 3_600_000, () => 0.999_999)).toBeLessThan(3_600_000);
  });

  it('spreads retries of the same attempt', () => {
    const delays = new Set(Array.from({ length: 50 }, () => fullJitterBackoffMs(6, 1_000, 60_000)));
    expect(delays.size).toBeGreaterThan(40);
  });
});
