/**
 * What a failed attempt records (`last_error`, the attempt log), besides `HTTP <status>`: only
 * what went wrong, never an address, a port or what a resolver answered, since the delivery log
 * is read by API clients, and telling "refused", "no such name", "nothing listens there" and
 * "filtered" apart for an address of their choosing would let them map the internal network.
 * The details are the result's `detail`, for the service's own log.
 */
export const ATTEMPT_ERRORS = {
  /** The URL or an address it resolves to breaks the target policy: nothing was sent. */
  refused: 'target refused',
  /** No answer: the name did not resolve, the connection was refused or reset, TLS failed. */
  connection: 'connection failed',
  /** No status within WEBHOOK_TIMEOUT_MS. */
  timeout: 'timeout',
} as const;

const HTTP_ERROR = /^HTTP \d{3}$/;

/**
 * The error as the delivery log shows it: `HTTP <status>` or one of ATTEMPT_ERRORS, also for what
 * an earlier version stored with its details (`timeout after 300 ms`, `target refused (rule): …`,
 * `ECONNREFUSED: connect ECONNREFUSED <address>:<port>`), or a replica not yet upgraded writes.
 */
export function publicAttemptError(stored: string | null): string | null {
  if (stored === null || HTTP_ERROR.test(stored)) return stored;
  if (stored.startsWith(ATTEMPT_ERRORS.refused)) return ATTEMPT_ERRORS.refused;
  if (stored.startsWith(ATTEMPT_ERRORS.timeout)) return ATTEMPT_ERRORS.timeout;
  return ATTEMPT_ERRORS.connection;
}
