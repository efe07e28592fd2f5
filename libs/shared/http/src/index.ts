// The adapter, then one installer per concern; configureHttpApp (libs/shared/nest) composes them.
export { createHttpAdapter } from './adapter';
export { installRequestId, REQUEST_ID_OPTIONS } from './request-id';
export { type ConnectionSettings, installTimeouts } from './timeouts';
export { installGracefulShutdown, ShuttingDownError } from './shutdown';
export { installErrorAnswers } from './error-answers';
export {
  HELMET_OPTIONS,
  installResponseHeaders,
  installSecurityHeaders,
  NO_CACHING,
} from './response-headers';
export {
  installRouteMethods,
  MethodNotAllowedError,
  ROUTER_OPTIONS,
  RouteMethods,
  routeMethodsOf,
} from './route-methods';
export * from './cors';
export {
  installTrustProxy,
  parseTrustProxy,
  TRUST_NOBODY,
  type TrustProxy,
  trustProxyProblem,
} from './trust-proxy';
export { BODY_NOT_UTF8, BODY_TOO_COMPLEX, MAX_BODY_DEPTH, MAX_BODY_MEMBERS } from './json-bodies';
