/** What the breaker allows now: a call, or a refusal with the time left until it may probe. */
export type BreakerDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker; 0 turns it off. */
  failureThreshold: number;
  /** How long an open breaker refuses calls before it lets one probe through. */
  cooldownMs: number;
  /** Milliseconds of a monotonic clock (injected so tests need no timers). */
  now: () => number;
}

/**
 * A circuit breaker for one downstream service. Closed: every call goes out; after
 * `failureThreshold` consecutive failures it opens and refuses calls for `cooldownMs`; then it
 * is half-open and lets exactly one probe through: a success closes it, a failure opens it
 * for another cool-down. Pure state, no timers: the caller asks `decide()` before a call and
 * reports the call's end with `succeeded()` or `failed()`.
 */
export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openedAt: number | null = null;
  private probeInFlight = false;

  constructor(private readonly options: CircuitBreakerOptions) {}

  get state(): BreakerState {
    if (this.openedAt === null) return 'closed';
    return this.options.now() - this.openedAt >= this.options.cooldownMs ? 'half-open' : 'open';
  }

  decide(): BreakerDecision {
    switch (this.state) {
      case 'closed':
        return { allowed: true };
      case 'open':
        return { allowed: false, retryAfterMs: this.remainingCooldown() };
      case 'half-open':
        if (this.probeInFlight) return { allowed: false, retryAfterMs: 0 };
        this.probeInFlight = true;
        return { allowed: true };
    }
  }

  succeeded(): void {
    this.consecutiveFailures = 0;
    this.openedAt = null;
    this.probeInFlight = false;
  }

  failed(): void {
    if (this.options.failureThreshold === 0) return;
    this.consecutiveFailures++;
    if (this.probeInFlight || this.consecutiveFailures >= this.options.failureThreshold) {
      this.openedAt = this.options.now();
    }
    this.probeInFlight = false;
  }

  private remainingCooldown(): number {
    return Math.max(0, (this.openedAt ?? 0) + this.options.cooldownMs - this.options.now());
  }
}
