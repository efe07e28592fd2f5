import { logSafeMessage } from './log-safe-error';
import { RateLimitedLog } from './rate-limited-log';

/** The part of a logger (Nest's Logger, bound to pino) a FailureLog writes with. */
export interface FailureLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * The kind of a known failure that repeats while it lasts (e.g. "Database unavailable
 * (connection)"), or undefined for an unexpected one.
 */
export type KnownFailureKind = (error: unknown) => string | undefined;

/** The class of an error and its message, as a failure's kind in a log line. */
function unexpectedKind(error: unknown): string {
  const name =
    error && typeof error === 'object'
      ? ((error as { constructor?: { name?: string } }).constructor?.name ?? 'Error')
      : typeof error;
  return `${name}: ${logSafeMessage(error)}`;
}

/**
 * The log of work that fails again and again while something it needs is down (a scheduler's
 * tick, a delivery round, every few hundred milliseconds during a database outage): one line
 * per title and kind of failure per interval, with the count of the others (RateLimitedLog).
 * A known failure (`known` names its kind) is logged without a stack: what failed is known, a
 * stack says nothing more. An unexpected one is logged with its stack on the first line of each
 * interval; the count lines name it.
 */
export class FailureLog {
  private readonly lines: RateLimitedLog;

  constructor(
    logger: FailureLogger,
    private readonly intervalMs: number,
    private readonly known: KnownFailureKind,
  ) {
    this.lines = new RateLimitedLog(intervalMs, ({ detail, suppressed }) => {
      const { title, kind, outage, error, fields } = detail as {
        title: string;
        kind: string;
        outage: boolean;
        error: unknown;
        fields: Record<string, unknown>;
      };
      const more = suppressed ? `: ${suppressed} more since the last line` : '';
      const counts = { suppressed, intervalMs: this.intervalMs };
      if (outage) {
        const message = `${title}: ${kind}${more}`;
        logger.error({ kind, error: logSafeMessage(error), ...counts, ...fields }, message);
      } else if (suppressed) {
        logger.error({ kind, ...counts, ...fields }, `${title}${more}`);
      } else {
        logger.error({ err: error, ...counts, ...fields }, title);
      }
    });
  }

  /** Logs that `title` (e.g. "Scheduled work failed") failed with `error`, rate-limited. */
  report(title: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const outage = this.known(error);
    const kind = outage ?? unexpectedKind(error);
    this.lines.report(`${title}\n${kind}`, { title, kind, outage: !!outage, error, fields });
  }

  /** Writes the counts still pending (at shutdown). */
  flush(): void {
    this.lines.flush();
  }
}
