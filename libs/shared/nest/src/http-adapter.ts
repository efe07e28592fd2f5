import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const REQUEST_ID_HEADER = 'x-request-id';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify with the 1 MiB body limit and a request id taken from X-Request-Id or generated. */
export function createHttpAdapter(): FastifyAdapter {
  const adapter = new FastifyAdapter({
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
  // Callers correlate their logs with ours through the request id.
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  return adapter;
}
