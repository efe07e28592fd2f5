/**
 * How long a delivery waits before its next attempt: exponential backoff with full jitter, a
 * uniformly random delay between 0 and `baseMs` doubled per failed attempt, capped at `maxMs`.
 * The jitter spreads the retries of many deliveries that failed together (a receiver that was
 * down) instead of sending them back at it at the same instant.
 *
 * @param attempts the attempts made so far, the failed one included (1 or more)
 * @param random a number in [0, 1); Math.random outside tests
 */
export function webhookRetryDelayMs(
  attempts: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), maxMs);
  return Math.floor(random() * ceiling);
}
