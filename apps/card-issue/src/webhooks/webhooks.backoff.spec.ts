import { webhookRetryDelayMs } from './webhooks.backoff';

describe('webhookRetryDelayMs', () => {
  it('draws below base * 2^(attempts - 1)', () => {
    expect(webhookRetryDelayMs(1, 1_000, 3_600_000, () => 0.999_999)).toBe(999);
    expect(webhookRetryDelayMs(2, 1_000, 3_600_000, () => 0.999_999)).toBe(1_999);
    expect(webhookRetryDelayMs(4, 1_000, 3_600_000, () => 0.5)).toBe(4_000);
  });

  it('can draw zero (full jitter)', () => {
    expect(webhookRetryDelayMs(5, 1_000, 3_600_000, () => 0)).toBe(0);
  });

  it('never exceeds the cap, even for absurd attempt counts', () => {
    expect(webhookRetryDelayMs(15, 1_000, 3_600_000, () => 0.999_999)).toBe(3_599_996);
    expect(webhookRetryDelayMs(2_000, 1_000, 3_600_000, () => 0.999_999)).toBeLessThan(3_600_000);
  });

  it('spreads retries of the same attempt', () => {
    const delays = new Set(Array.from({ length: 50 }, () => webhookRetryDelayMs(6, 1_000, 60_000)));
    expect(delays.size).toBeGreaterThan(40);
  });
});
