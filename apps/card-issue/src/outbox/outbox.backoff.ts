/**
 * How long a message waits before its next delivery attempt: `baseMs` after the first failed
 * attempt, doubling with each further one, never more than `maxMs`.
 *
 * @param attempts the attempts made so far, the failed one included (1 or more)
 */
export function outboxRetryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** (attempts - 1), maxMs);
}
