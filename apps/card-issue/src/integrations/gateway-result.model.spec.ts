import {
  GatewayOutcome,
  failureReasonOf,
  isTransient,
  parseRetryAfter,
  toGatewayResult,
} from './gateway-result.model';

const answered = (status: number, body: unknown = {}): GatewayOutcome => ({
  kind: 'answered',
  status,
  body,
});

describe('toGatewayResult', () => {
  it('passes an outage through, naming the service', () => {
    expect(
      toGatewayResult('user service', { kind: 'unavailable', reason: 'connection refused' }, [200]),
    ).toEqual({ kind: 'unavailable', service: 'user service', reason: 'connection refused' });
  });

  it('is ok with the body for an expected status', () => {
    expect(toGatewayResult('user service', answered(201, { id: 'X1A2B3' }), [201, 200])).toEqual({
      kind: 'ok',
      value: { id: 'X1A2B3' },
    });
  });

  it('is ok without a value when the body is meant to be empty', () => {
    expect(
      toGatewayResult('user service', answered(204, ''), [204, 200], { emptyBody: true }),
    ).toEqual({ kind: 'ok', value: undefined });
  });

  it.each([['text'], [null], [[1, 2]]])(
    'is unavailable for an expected status whose body is not an object (%p)',
    (body) => {
      expect(toGatewayResult('branch service', answered(200, body), [200])).toEqual({
        kind: 'unavailable',
        service: 'branch service',
        reason: 'answered 200 without a JSON object',
      });
    },
  );

  it('is not-found for a 404 of the resource', () => {
    expect(
      toGatewayResult('user service', answered(404, { message: 'User X1A2B3 not found' }), [200]),
    ).toEqual({ kind: 'not-found' });
    expect(toGatewayResult('user service', answered(404, 'Not Found'), [200])).toEqual({
      kind: 'not-found',
    });
  });

  it('is unavailable for a 404 of the route itself (a wrong base URL)', () => {
    expect(
      toGatewayResult(
        'operation service',
        answered(404, { message: 'No route for GET /api/v1/x' }),
        [200],
      ),
    ).toEqual({
      kind: 'unavailable',
      service: 'operation service',
      reason: 'answered 404 for the route (check the base URL)',
    });
  });

  it("is conflict with the service's message for 409, or a default one", () => {
    expect(toGatewayResult('user service', answered(409, { message: 'taken' }), [201])).toEqual({
      kind: 'conflict',
      message: 'taken',
    });
    expect(toGatewayResult('user service', answered(409, 'taken'), [201])).toEqual({
      kind: 'conflict',
      message: 'Conflict',
    });
  });

  it.each([400, 403, 500, 503])('is unavailable for any other status (%i)', (status) => {
    expect(toGatewayResult('user service', answered(status), [200])).toEqual({
      kind: 'unavailable',
      service: 'user service',
      reason: `answered ${status}`,
    });
  });
});

describe('isTransient', () => {
  it.each([408, 429, 500, 502, 503])('retries after %i', (status) => {
    expect(isTransient(answered(status))).toBe(true);
  });

  it('retries when there was no answer', () => {
    expect(isTransient({ kind: 'unavailable', reason: 'connection reset' })).toBe(true);
  });

  it.each([200, 201, 204, 400, 403, 404, 409, 499])('does not retry after %i', (status) => {
    expect(isTransient(answered(status))).toBe(false);
  });
});

describe('failureReasonOf', () => {
  it('names the reason of an outage, the message of a conflict, else the kind', () => {
    expect(
      failureReasonOf({
        kind: 'unavailable',
        service: 'operation service',
        reason: 'answered 503',
      }),
    ).toBe('answered 503');
    expect(failureReasonOf({ kind: 'conflict', message: 'other owner' })).toBe('other owner');
    expect(failureReasonOf({ kind: 'not-found' })).toBe('not-found');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T09:00:00.000Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 30 ', now)).toBe(30_000);
  });

  it('reads an HTTP-date, a past one as 0', () => {
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 08:00:00 GMT', now)).toBe(0);
  });

  it.each([undefined, '', '-1', '1.5', 'soon', ['1']])('ignores %p', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('toGatewayResult keeps a Retry-After', () => {
  it('of a 429 and of an outage', () => {
    expect(
      toGatewayResult('user service', { ...answered(429), retryAfterMs: 2_000 }, [200]),
    ).toEqual({
      kind: 'unavailable',
      service: 'user service',
      reason: 'answered 429',
      retryAfterMs: 2_000,
    });
    expect(
      toGatewayResult('user service', { kind: 'unavailable', reason: 'x', retryAfterMs: 5 }, [200]),
    ).toEqual({ kind: 'unavailable', service: 'user service', reason: 'x', retryAfterMs: 5 });
  });
});
