import { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import { INestApplication } from '@nestjs/common';
import { fastifyAdapterOf } from './adapter-of';

/**
 * Headers every answer carries (security headers, no caching), per adapter: set by
 * installResponseHeaders, added by error-answers.ts to the answers no request hook sees (a
 * client error on the bare socket, an error of Fastify's router).
 */
const baseHeaders = new WeakMap<object, Record<string, string>>();

/** Registers the headers of every answer (see baseHeaders) and adds them to each request's reply. */
export function installResponseHeaders(
  app: INestApplication,
  headers: Record<string, string>,
): void {
  const adapter = fastifyAdapterOf(app);
  baseHeaders.set(adapter, headers);
  adapter.getInstance().addHook('onRequest', (_request, reply, done) => {
    void reply.headers(headers);
    done();
  });
}

/** The headers of every answer of the adapter (none before installResponseHeaders). */
export function responseHeadersOf(adapter: object): Record<string, string> {
  return baseHeaders.get(adapter) ?? {};
}

/** helmet's options: its defaults, with a CSP that admits what Swagger UI at /docs needs. */
export const HELMET_OPTIONS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'validator.swagger.io'],
      scriptSrc: ["'self'", "'unsafe-inline'"],
      // helmet's default would send every asset of Swagger UI to https when the page is opened
      // over plain HTTP under any host name but localhost (a blank page); TLS is the ingress's.
      upgradeInsecureRequests: null,
    },
  },
};

/**
 * The headers helmet sets with these options (none depends on the request: no nonces, no
 * function directives), computed once by running its middleware against a recording response.
 */
function securityHeaders(options = HELMET_OPTIONS): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  let failure: unknown;
  helmet(options)(
    {} as IncomingMessage,
    recorder as unknown as ServerResponse,
    (error?: unknown) => (failure = error),
  );
  if (failure) throw failure instanceof Error ? failure : new Error('helmet rejected its options');
  return headers;
}

/**
 * Security headers on every response (helmet defaults: HSTS, nosniff, frame denial, ...), and
 * no caching (NO_CACHING), including the answers Node and Fastify give before Nest does.
 * The CSP admits what Swagger UI at /docs needs (its inline styles, data: images, and the
 * inline bootstrap script of @nestjs/swagger's page); the JSON API serves no HTML.
 * The headers are computed once: @fastify/helmet builds helmet's middleware anew for every
 * request, and helmet's middleware validates each header again, together a tenth of the
 * CPU of a GET here (docs/decisions/0006-hot-reads-in-plain-sql.md).
 */
export function installSecurityHeaders(app: INestApplication): void {
  installResponseHeaders(app, { ...securityHeaders(), ...NO_CACHING });
}

/**
 * Every answer may carry personal data (a record, a client, an error about them): no cache
 * (browser, proxy, CDN) may keep it. Pragma for HTTP/1.0 caches.
 */
export const NO_CACHING = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;
