import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let now: number;
  const breaker = (failureThreshold = 3, cooldownMs = 1_000) =>
    new CircuitBreaker({ failureThreshold, cooldownMs, now: () => now });

  beforeEach(() => (now = 10_000));

  it('stays closed below the threshold and a success resets the count', () => {
    const b = breaker();
    b.failed();
    b.failed();
    b.succeeded();
    b.failed();
    b.failed();
    expect(b.state).toBe('closed');
    expect(b.decide()).toEqual({ allowed: true });
  });

  it('opens after the threshold of consecutive failures and refuses with the cool-down left', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.failed();
    expect(b.state).toBe('open');
    now += 400;
    expect(b.decide()).toEqual({ allowed: false, retryAfterMs: 600 });
  });

  it('lets exactly one probe through after the cool-down; its success closes the breaker', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.failed();
    now += 1_000;
    expect(b.state).toBe('half-open');
    expect(b.decide()).toEqual({ allowed: true });
    expect(b.decide()).toEqual({ allowed: false, retryAfterMs: 0 });
    b.succeeded();
    expect(b.state).toBe('closed');
    expect(b.decide()).toEqual({ allowed: true });
  });

  it('a failed probe opens it for another full cool-down', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.failed();
    now += 1_500;
    expect(b.decide()).toEqual({ allowed: true });
    b.failed();
    expect(b.state).toBe('open');
    expect(b.decide()).toEqual({ allowed: false, retryAfterMs: 1_000 });
  });

  it('never opens with a threshold of 0', () => {
    const b = breaker(0);
    for (let i = 0; i < 100; i++) b.failed();
    expect(b.state).toBe('closed');
    expect(b.decide()).toEqual({ allowed: true });
  });
});
