/**
 * What a gateway call to a downstream service came to. Gateways never throw HTTP errors
 * at their callers: the caller decides what a missing user or an outage means.
 */
export type GatewayResult<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'not-found' }
  | { kind: 'conflict'; message: string }
  | {
      kind: 'unavailable';
      service: DownstreamService;
      reason: string;
      /** When the service may be asked again (its own Retry-After, or the breaker's cool-down). */
      retryAfterMs?: number;
    };

export type DownstreamService = 'user service' | 'branch service' | 'operation service';

/** The last answer of a call, or why there was none; retryAfterMs from a Retry-After header or the breaker. */
export type GatewayOutcome =
  | { kind: 'answered'; status: number; body: unknown; retryAfterMs?: number }
  | { kind: 'unavailable'; reason: string; retryAfterMs?: number };

/** An outcome worth another attempt (idempotent calls only): no answer, 5xx, 429 or 408. */
export function isTransient(outcome: GatewayOutcome): boolean {
  return (
    outcome.kind === 'unavailable' ||
    outcome.status >= 500 ||
    outcome.status === 429 ||
    outcome.status === 408
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The typed result of an outcome: `ok` for the expected statuses (with an object body),
 * `not-found` for 404, `conflict` for 409, `unavailable` for everything else (an answer the
 * caller cannot act on, e.g. 403 for a wrong secret, is an outage of that dependency).
 */
export function toGatewayResult<T>(
  service: DownstreamService,
  outcome: GatewayOutcome,
  okStatuses: number[],
  options: { emptyBody?: boolean } = {},
): GatewayResult<T> {
  if (outcome.kind === 'unavailable') return { ...outcome, service };
  const { status, body } = outcome;
  if (okStatuses.includes(status)) {
    if (options.emptyBody) return { kind: 'ok', value: undefined as T };
    if (isObject(body)) return { kind: 'ok', value: body as T };
    return { kind: 'unavailable', service, reason: `answered ${status} without a JSON object` };
  }
  if (status === 404) {
    // A 404 for the route itself means a wrong base URL, not a missing resource.
    const routeMissing =
      isObject(body) && typeof body.message === 'string' && body.message.startsWith('No route for');
    return routeMissing
      ? { kind: 'unavailable', service, reason: 'answered 404 for the route (check the base URL)' }
      : { kind: 'not-found' };
  }
  if (status === 409) {
    const message = isObject(body) && typeof body.message === 'string' ? body.message : 'Conflict';
    return { kind: 'conflict', message };
  }
  return {
    kind: 'unavailable',
    service,
    reason: `answered ${status}`,
    ...(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs }),
  };
}

/**
 * A Retry-After header in milliseconds: delay-seconds or an HTTP-date (RFC 9110 10.2.3);
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  if (!/^[A-Za-z]{3}, /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Why a call did not succeed, in words fit for a log line or a stored error. */
export function failureReasonOf(result: Exclude<GatewayResult<unknown>, { kind: 'ok' }>): string {
  switch (result.kind) {
    case 'unavailable':
      return result.reason;
    case 'conflict':
      return result.message;
    default:
      return result.kind;
  }
}
