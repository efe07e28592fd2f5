import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { INestApplication } from '@nestjs/common';
import { REQUEST_ID_HEADER, runWithRequestId } from '@bank/shared/tracing';
import { fastifyAdapterOf } from './adapter-of';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The adapter's request ids (options Fastify takes when it is built): the X-Request-Id the
 * request sent, when it is safe to log and echo, else a new UUID.
 */
export const REQUEST_ID_OPTIONS = {
  requestIdHeader: false,
  genReqId: (req: IncomingMessage) => {
    const incoming = req.headers[REQUEST_ID_HEADER];
    return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  },
} as const;

/**
 * Every answer carries the request id, and the handler of a request runs under it (see
 * runWithRequestId).
 */
export function installRequestId(app: INestApplication): void {
  const fastify = fastifyAdapterOf(app).getInstance();
  // Callers correlate their logs with ours through the request id.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // The handler and everything it awaits run under the request id, so the downstream calls it
  // makes forward it (GatewayHttp) and the outbox messages it writes keep it. (preHandler: the
  // body has been read by then, so no stream callback leaves the scope.)
  fastify.addHook('preHandler', (request, _reply, done) => runWithRequestId(request.id, done));
}
