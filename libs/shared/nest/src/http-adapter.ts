import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { ArgumentsHost, ExceptionFilter, INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

const BODY_LIMIT_BYTES = 1024 * 1024;
export const REQUEST_ID_HEADER = 'x-request-id';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type FrameworkErrorHandler = (error: Error, request: FastifyRequest, reply: FastifyReply) => void;

/** The service's error filter, per adapter (set by routeFrameworkErrorsTo). */
const frameworkErrorHandlers = new WeakMap<object, FrameworkErrorHandler>();

/**
 * Fastify with the 1 MiB body limit and a request id taken from X-Request-Id or generated.
 * Errors Fastify's router raises before Nest sees the request (a malformed URL, a parameter
 * over 200 characters) go to the service's error filter too (see routeFrameworkErrorsTo).
 */
export function createHttpAdapter(): FastifyAdapter {
  const adapter: FastifyAdapter = new FastifyAdapter({
    frameworkErrors: (
      error: Error & { statusCode?: number },
      request: FastifyRequest,
      reply: FastifyReply,
    ) => {
      const handler = frameworkErrorHandlers.get(adapter);
      if (handler) return handler(error, request, reply);
      void reply
        .code(error.statusCode ?? 400)
        .send({ statusCode: error.statusCode ?? 400, message: error.message });
    },
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: true,
    routerOptions: { maxParamLength: 200 },
    requestIdHeader: false,
    genReqId: (req: IncomingMessage) => {
      const incoming = req.headers[REQUEST_ID_HEADER];
      return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming)
        ? incoming
        : randomUUID();
    },
  });
  // Every body is JSON: text/plain would reach validation as a bare string; answer 415 instead.
  adapter.getInstance().removeContentTypeParser('text/plain');
  // Once the server is closing, a response finished after that point must not leave its
  // connection open as keep-alive: it would hold the close for keepAliveTimeout (72 s),
  // past a Kubernetes grace period. Connections idle at that moment Fastify closes itself.
  let closing = false;
  adapter.getInstance().addHook('preClose', (done) => {
    closing = true;
    done();
  });
  adapter.getInstance().addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
  // Callers correlate their logs with ours through the request id.
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  return adapter;
}

/** Sends Fastify's own router errors through the service's exception filter, so they keep its error shape. */
export function routeFrameworkErrorsTo(app: INestApplication, filter: ExceptionFilter): void {
  frameworkErrorHandlers.set(app.getHttpAdapter(), (error, request, reply) => {
    const http = { getRequest: () => request, getResponse: () => reply, getNext: () => undefined };
    const host = {
      switchToHttp: () => http,
      getType: () => 'http',
      getArgs: () => [request, reply],
    };
    filter.catch(error, host as unknown as ArgumentsHost);
  });
}
