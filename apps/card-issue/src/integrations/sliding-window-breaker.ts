import { CircuitState, IBreaker, SamplingBreaker } from 'cockatiel';

export interface SlidingWindowOptions {
  /** Share of failed calls in the window above which the breaker opens, in (0, 1). */
  threshold: number;
  /** Length of the sliding window. */
  durationMs: number;
  /** Calls the window must hold before its failure share can open the breaker (at least 1). */
  minimumCalls: number;
}

/** What SamplingBreaker exposes as its (serializable) state. */
interface SamplingState {
  windows: { startedAt: number; failures: number; successes: number }[];
  currentWindow: number;
  currentFailures: number;
  currentSuccesses: number;
}

/**
 * cockatiel's SamplingBreaker (a failure rate over a sliding window of time, cut into buckets,
 * with a minimum number of calls), with two of its edges made exact:
 *
 * - It takes the minimum as calls per second and compares `calls < window x rate` in floating
 *   point, over its window rounded to whole buckets: here it is a number of calls, and exactly
 *   that number opens it.
 * - It moves on by one bucket per call, so after a quiet stretch the buckets of long ago still
 *   count until as many calls have come as there are buckets: a busy minute and, an hour later,
 *   a few failures would open it together. Here a bucket that started a whole window ago is
 *   emptied before each call is counted, as it would have been under steady traffic.
 *
 * Both go through SamplingBreaker's public state; the counting itself is SamplingBreaker's.
 */
export class SlidingWindowBreaker implements IBreaker {
  private readonly sampling: SamplingBreaker;
  /** The window as SamplingBreaker cuts it: at least 5 buckets of at most 1 s. */
  private readonly windowMs: number;

  constructor({ threshold, durationMs, minimumCalls }: SlidingWindowOptions) {
    const buckets = Math.max(5, Math.ceil(durationMs / 1_000));
    this.windowMs = Math.round(durationMs / buckets) * buckets;
    this.sampling = new SamplingBreaker({
      threshold,
      duration: durationMs,
      // Half a call under the minimum: `calls < minimumCalls - 0.5` whatever the rounding.
      minimumRps: ((minimumCalls - 0.5) * 1_000) / this.windowMs,
    });
  }

  get state(): unknown {
    return this.sampling.state;
  }

  set state(value: unknown) {
    this.sampling.state = value;
  }

  success(state: CircuitState): void {
    this.forgetExpired();
    this.sampling.success(state);
  }

  failure(state: CircuitState): boolean {
    this.forgetExpired();
    return this.sampling.failure(state);
  }

  private forgetExpired(): void {
    const now = Date.now();
    const sampled = this.sampling.state as SamplingState;
    let changed = false;
    for (const bucket of sampled.windows) {
      if ((bucket.failures || bucket.successes) && now - bucket.startedAt >= this.windowMs) {
        sampled.currentFailures -= bucket.failures;
        sampled.currentSuccesses -= bucket.successes;
        bucket.failures = 0;
        bucket.successes = 0;
        changed = true;
      }
    }
    if (changed) this.sampling.state = sampled;
  }
}
