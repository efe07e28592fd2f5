/** One line a RateLimitedLog writes. */
export interface RateLimitedLogLine {
  kind: string;
  /** What the latest occurrence said (e.g. the error message, the route). */
  detail: Record<string, unknown>;
  /** Occurrences of this kind since the previous line that were not logged on their own. */
  suppressed: number;
}

/**
 * Logs a failure that repeats (a database outage fails every request) as one line per kind per
 * interval instead of one per occurrence: the first occurrence is written at once; the ones
 * after it within the interval are only counted, and when the interval ends one line carries
 * their count (and opens the next interval if they kept coming). A kind quiet for a whole
 * interval starts over: its next occurrence is written at once again.
 */
export class RateLimitedLog {
  private readonly windows = new Map<
    string,
    { suppressed: number; detail: Record<string, unknown>; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly intervalMs: number,
    private readonly write: (line: RateLimitedLogLine) => void,
  ) {}

  report(kind: string, detail: Record<string, unknown>): void {
    const window = this.windows.get(kind);
    if (window) {
      window.suppressed++;
      window.detail = detail;
      return;
    }
    this.write({ kind, detail, suppressed: 0 });
    this.open(kind, detail);
  }

  /** Writes the counts still pending (e.g. at shutdown) and forgets every interval. */
  flush(): void {
    for (const [kind, window] of this.windows) {
      clearTimeout(window.timer);
      if (window.suppressed > 0) {
        this.write({ kind, detail: window.detail, suppressed: window.suppressed });
      }
    }
    this.windows.clear();
  }

  private open(kind: string, detail: Record<string, unknown>): void {
    const timer = setTimeout(() => this.close(kind), this.intervalMs);
    // A pending count must not keep the process alive.
    timer.unref();
    this.windows.set(kind, { suppressed: 0, detail, timer });
  }

  private close(kind: string): void {
    const window = this.windows.get(kind);
    this.windows.delete(kind);
    if (!window || window.suppressed === 0) return;
    this.write({ kind, detail: window.detail, suppressed: window.suppressed });
    this.open(kind, window.detail);
  }
}
