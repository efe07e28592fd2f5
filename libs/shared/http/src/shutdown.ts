import { IncomingMessage, Server } from 'node:http';
import { INestApplication, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { fastifyAdapterOf } from './adapter-of';
import { answerOnSocket, answerReply } from './error-answers';
import { connectionSettingsOf } from './timeouts';

/** The service is shutting down and will not take a request that has not wholly arrived. */
export class ShuttingDownError extends Error {
  readonly code = 'SHUTTING_DOWN';
  readonly statusCode = 503;

  constructor() {
    super('The service is shutting down; retry on another instance');
  }
}

/**
 * Once the server is closing, a response finished after that point must not leave its
 * connection open as keep-alive: it would hold the close for keepAliveTimeout (72 s),
 * past a Kubernetes grace period. Connections idle at that moment Fastify closes itself.
 * Requests still arriving (Node stops enforcing requestTimeout once the server closes) are
 * answered 503 at once; requests in flight get until the shutdown deadline (installTimeouts),
 * then 503, and every connection left is closed.
 */
export function installGracefulShutdown(app: INestApplication): void {
  const adapter = fastifyAdapterOf(app);
  const fastify = adapter.getInstance();
  let closing = false;
  const open = new Map<IncomingMessage, FastifyReply>();
  fastify.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    open.set(raw, reply);
    reply.raw.once('close', () => open.delete(raw));
    done();
  });
  fastify.addHook('preClose', (done) => {
    closing = true;
    const settings = connectionSettingsOf(adapter);
    for (const [raw] of open) {
      if (!raw.complete) answerOnSocket(adapter, raw.socket, new ShuttingDownError());
    }
    const server = adapter.getHttpServer<Server>();
    const deadline = setTimeout(() => {
      new Logger('HttpAdapter').warn(
        `${open.size} requests still open ${settings.shutdownTimeoutMs} ms after the shutdown began: answering 503 and closing their connections`,
      );
      for (const [, reply] of open) answerReply(adapter, reply, new ShuttingDownError());
      // Let the answers go out, then cut whatever is left.
      setTimeout(() => server.closeAllConnections(), 200).unref();
    }, settings.shutdownTimeoutMs);
    deadline.unref();
    server.once('close', () => clearTimeout(deadline));
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
}
