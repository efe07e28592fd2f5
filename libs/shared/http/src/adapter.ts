import { Socket } from 'node:net';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerClientError, answerFrameworkError } from './error-answers';
import { BODY_LIMIT_BYTES, JsonOnlyFastifyAdapter } from './json-bodies';
import { REQUEST_ID_OPTIONS } from './request-id';
import { ROUTER_OPTIONS } from './route-methods';
import { TIMEOUT_OPTIONS } from './timeouts';
import { trustProxyOf } from './trust-proxy';
import { endGentlyOnUnreadBodies } from './unread-bodies';

/**
 * The Fastify adapter of a service, with what Fastify takes only when it is built: bodies of
 * JSON only, up to 1 MiB; the request id taken from X-Request-Id or generated; the router's
 * options; the connection timeouts until installTimeouts sets the configured ones. Three of
 * them are slots filled once the environment and the service's filter are known: the proxies
 * trusted (installTrustProxy), and the answers to the errors Fastify's router raises before
 * Nest sees the request (a malformed URL, a parameter over 200 characters) and to client
 * errors on a bare socket (installErrorAnswers). Everything that hooks into requests is
 * installed on the app afterwards, one concern per install* function, composed by the caller.
 */
export function createHttpAdapter(): FastifyAdapter {
  const adapter: FastifyAdapter = new JsonOnlyFastifyAdapter({
    frameworkErrors: (
      error: Error & { statusCode?: number },
      request: FastifyRequest,
      reply: FastifyReply,
    ) => answerFrameworkError(adapter, error, request, reply),
    // A request that has not wholly arrived in time (e.g. a body trickling in) is answered
    // 408 on its socket, in the service's error shape.
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) =>
      answerClientError(adapter, error, socket),
    ...TIMEOUT_OPTIONS,
    bodyLimit: BODY_LIMIT_BYTES,
    // TRUST_PROXY, applied by installTrustProxy once the environment is known.
    trustProxy: (address: string, hop: number) => trustProxyOf(adapter)(address, hop),
    routerOptions: { ...ROUTER_OPTIONS },
    ...REQUEST_ID_OPTIONS,
  });
  // A 413 answered before the body was read must reach a client still sending it.
  endGentlyOnUnreadBodies(adapter.getHttpServer());
  return adapter;
}
