/**
 * How long a row waits before its next attempt: `baseMs` after the first failed attempt,
 * doubling with each further one, never more than `maxMs`.
 *
 * @param attempts the attempts made so far, the failed one included (1 or more)
 */
export function exponentialBackoffMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** (attempts - 1), maxMs);
}

/**
 * Exponential backoff with full jitter: a uniformly random delay between 0 and
 * exponentialBackoffMs. The jitter spreads the retries of many rows that failed together (a
 * receiver that was down) instead of sending them back at it at the same instant.
 *
 * @param attempts the attempts made so far, the failed one included (1 or more)
 * @param random a number in [0, 1); Math.random outside tests
 */
export function fullJitterBackoffMs(
  attempts: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * exponentialBackoffMs(Math.max(1, attempts), baseMs, maxMs));
}

/** A queue's retry delays (DeliveryQueue.retryDelayMs). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** Full jitter (fullJitterBackoffMs) rather than the exact exponential delay. */
  jitter: boolean;
}
