import type { FastifyRequest } from 'fastify';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { RouteMethods } from './route-methods';

/** @fastify/cors's options, as Nest's enableCors takes them. */
type CorsOptions = NonNullable<Parameters<NestFastifyApplication['enableCors']>[0]>;

/** What a browser script may send: the JSON body, the idempotency key, its own request id, a bearer token. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'X-Request-Id',
] as const;

/** What a browser script may read beyond the CORS-safelisted response headers. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'Idempotent-Replayed',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
] as const;

/** How long a browser may cache a preflight (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 600;

/** The only origin entry that is not an origin: any origin (refused in production). */
export const ANY_ORIGIN = '*';

/** CORS_ORIGINS as configured: a comma-separated list; empty means none (CORS off). */
export function parseCorsOrigins({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.length ? entries : undefined;
}

/**
 * What is wrong with a CORS_ORIGINS list, or undefined. Each entry is compared with the Origin
 * header exactly, so it must be an origin as a browser serializes it (scheme://host[:port],
 * lower case, no default port, no path or trailing slash); `*` (any origin) stands alone and
 * never in production, where it would let any web page call the API with its users' network.
 */
export function corsOriginsProblem(
  origins: readonly string[],
  nodeEnv: string,
): string | undefined {
  if (origins.includes(ANY_ORIGIN)) {
    if (origins.length > 1) return '* (any origin) cannot be combined with other origins';
    if (nodeEnv === 'production')
      return '* (any origin) is refused in production: list the origins';
    return undefined;
  }
  const wrong = origins.filter((entry) => !isSerializedOrigin(entry));
  if (wrong.length) {
    return (
      `${wrong.join(', ')}: not an origin as browsers send it ` +
      '(scheme://host[:port], e.g. https://app.example.com, lower case, no path or trailing slash)'
    );
  }
  return undefined;
}

/** scheme://host[:port] with a DNS name or an IP literal (the URL parser admits `*` in a host). */
const ORIGIN_SHAPE = /^https?:\/\/([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(:\d{1,5})?$/;

function isSerializedOrigin(entry: string): boolean {
  if (!ORIGIN_SHAPE.test(entry)) return false;
  try {
    const url = new URL(entry);
    return ['http:', 'https:'].includes(url.protocol) && url.origin === entry;
  } catch {
    return false;
  }
}

/**
 * The per-request CORS options (@fastify/cors's delegator): a request whose Origin is not
 * allowed gets no CORS header at all. A preflight is answered with the methods its path
 * supports; a preflight on a path no route has, and an OPTIONS that is not a preflight, get no
 * CORS answer and go on to the router (404, or 405 with Allow).
 */
export function corsDelegator(origins: readonly string[], routes: RouteMethods) {
  const anyOrigin = origins.includes(ANY_ORIGIN);
  const allowed = new Set(origins);
  const refuse: CorsOptions = { origin: false };
  return (
    request: FastifyRequest,
    callback: (error: Error | null, options?: CorsOptions) => void,
  ): void => {
    const origin = request.headers.origin;
    if (origin === undefined || (!anyOrigin && !allowed.has(origin))) {
      return callback(null, refuse);
    }
    let methods: string[] = [];
    if (request.method === 'OPTIONS') {
      if (request.headers['access-control-request-method'] === undefined) {
        return callback(null, refuse);
      }
      methods = routes.allowedMethods(request.url);
      if (methods.length === 0) return callback(null, refuse);
    }
    callback(null, {
      origin: anyOrigin ? ANY_ORIGIN : origin,
      methods,
      allowedHeaders: [...CORS_ALLOWED_HEADERS],
      exposedHeaders: [...CORS_EXPOSED_HEADERS],
      maxAge: CORS_MAX_AGE_SECONDS,
      credentials: false,
    });
  };
}

/** Answers cross-origin requests from the configured origins (see corsDelegator); none: no CORS. */
export function installCors(
  app: NestFastifyApplication,
  origins: readonly string[] | undefined,
  routes: RouteMethods,
): void {
  if (!origins?.length) return;
  app.enableCors({ delegator: corsDelegator(origins, routes) });
}
