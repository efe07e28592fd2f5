import { CircuitState, SamplingBreaker } from 'cockatiel';
import { SlidingWindowBreaker } from './sliding-window-breaker';

/*
 * The breaker's counting, on cockatiel's wall clock (Date.now, set by the test). How the
 * policy uses it (open, half-open, probe) is tested over real HTTP in
 * gateway-breaker.integration-spec.ts.
 */
describe('SlidingWindowBreaker', () => {
  let now: number;
  beforeEach(() => {
    now = 1_700_000_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  const failures = (breaker: { failure(state: CircuitState): boolean }, count: number) =>
    Array.from({ length: count }, () => breaker.failure(CircuitState.Closed));

  it.each([10_000, 3_333, 1_000, 60_000])(
    'opens at exactly the minimum number of calls, all failed (window %i ms)',
    (durationMs) => {
      const breaker = new SlidingWindowBreaker({ threshold: 0.5, durationMs, minimumCalls: 7 });
      expect(failures(breaker, 7)).toEqual([false, false, false, false, false, false, true]);
    },
  );

  it('stays closed while failures are no more than the threshold share of the window', () => {
    const breaker = new SlidingWindowBreaker({
      threshold: 0.5,
      durationMs: 10_000,
      minimumCalls: 4,
    });
    for (let i = 0; i < 10; i++) breaker.success(CircuitState.Closed);
    expect(failures(breaker, 10)).not.toContain(true); // 10 of 20: not more than half
    expect(breaker.failure(CircuitState.Closed)).toBe(true); // 11 of 21
  });

  it('forgets the calls that left the window, however quiet it was since', () => {
    const options = { threshold: 0.5, durationMs: 10_000, minimumCalls: 20 };
    const breaker = new SlidingWindowBreaker(options);
    failures(breaker, 15);
    now += 5 * 60_000;
    // Five fresh failures, five short of the minimum: the fifteen of five minutes ago are gone.
    expect(failures(breaker, 5)).not.toContain(true);
    expect(failures(breaker, 14)).not.toContain(true);
    expect(breaker.failure(CircuitState.Closed)).toBe(true);

    // cockatiel's SamplingBreaker moves one bucket per call: after a quiet stretch it still
    // counts calls far older than its window.
    const sampling = new SamplingBreaker({
      threshold: 0.5,
      duration: 10_000,
      minimumRps: 19.5 / 10,
    });
    failures(sampling, 15);
    now += 5 * 60_000;
    expect(failures(sampling, 5)).toContain(true);
  });

  it('keeps the calls of the window while the window moves on', () => {
    const breaker = new SlidingWindowBreaker({
      threshold: 0.5,
      durationMs: 10_000,
      minimumCalls: 10,
    });
    failures(breaker, 6);
    now += 6_000;
    expect(failures(breaker, 3)).not.toContain(true);
    now += 3_000;
    expect(breaker.failure(CircuitState.Closed)).toBe(true); // 10 within the last 10 s
  });

  it('after a half-open success starts counting afresh', () => {
    const breaker = new SlidingWindowBreaker({
      threshold: 0.5,
      durationMs: 10_000,
      minimumCalls: 3,
    });
    failures(breaker, 2);
    breaker.success(CircuitState.HalfOpen);
    expect(failures(breaker, 2)).toEqual([false, true]); // 2 of 3 after the reset
  });
});
