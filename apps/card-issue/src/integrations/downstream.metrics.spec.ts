import { downstreamOutcome } from './downstream.metrics';

describe('downstreamOutcome', () => {
  it.each([
    [{ kind: 'answered' as const, status: 200, body: {} }, '2xx'],
    [{ kind: 'answered' as const, status: 404, body: {} }, '4xx'],
    [{ kind: 'answered' as const, status: 503, body: {} }, '5xx'],
    [{ kind: 'unavailable' as const, reason: 'no answer within 2000 ms' }, 'timeout'],
    [
      { kind: 'unavailable' as const, reason: 'circuit open after repeated failures' },
      'circuit_open',
    ],
    [{ kind: 'unavailable' as const, reason: 'request budget spent' }, 'budget_spent'],
    [{ kind: 'unavailable' as const, reason: 'connection refused' }, 'network_error'],
    [{ kind: 'unavailable' as const, reason: 'network error EPROTO' }, 'network_error'],
  ])('%j is %s (a fixed set of labels)', (outcome, label) =>
    expect(downstreamOutcome(outcome)).toBe(label),
  );
});
