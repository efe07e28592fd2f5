/**
 * What a gateway call to a downstream service came to. Gateways never throw HTTP errors
 * at their callers: the caller decides what a missing user or an outage means.
 */
export type GatewayResult<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'not-found' }
  | { kind: 'conflict'; message: string }
  | { kind: 'unavailable'; service: DownstreamService; reason: string };

export type DownstreamService = 'user service' | 'branch service' | 'operation service';
