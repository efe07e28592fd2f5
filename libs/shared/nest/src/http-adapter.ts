import { randomUUID } from 'node:crypto';
import { IncomingMessage, STATUS_CODES, Server } from 'node:http';
import { Socket } from 'node:net';
import { ArgumentsHost, ExceptionFilter, INestApplication, Logger } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

const BODY_LIMIT_BYTES = 1024 * 1024;
export const REQUEST_ID_HEADER = 'x-request-id';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type FrameworkErrorHandler = (error: Error, request: FastifyRequest, reply: FastifyReply) => void;

/** The service's error filter, per adapter (set by routeFrameworkErrorsTo). */
const frameworkErrorHandlers = new WeakMap<object, FrameworkErrorHandler>();

/** What a filter that can answer outside a request (on a bare socket) offers; see ErrorShapeFilter.answer. */
interface SocketAnswering {
  answer(exception: unknown): {
    problem: { status: number };
    body: object;
    headers: Record<string, string>;
  };
}
const socketAnswerers = new WeakMap<object, SocketAnswering>();

/** Timeouts of the connections and of the shutdown (set from the environment by configureConnections). */
export interface ConnectionSettings {
  /** Headers and body must have arrived within this time, else 408. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** From the start of the close, the time in-flight requests get; then every connection is destroyed. */
  shutdownTimeoutMs: number;
}

const DEFAULT_CONNECTION_SETTINGS: ConnectionSettings = {
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 72_000,
  shutdownTimeoutMs: 25_000,
};
const connectionSettings = new WeakMap<object, ConnectionSettings>();

/** How often Node checks for requests past their timeout (its default, 30 s, would add up to that). */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** Client errors Node raises on a socket (no request object yet), as the filter knows them. */
function clientError(error: Error & { code?: string }): object {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADER_OVERFLOW')
    return error;
  return { code: 'CLIENT_ERROR', statusCode: 400, message: 'Malformed HTTP request' };
}

/**
 * Answers on a bare socket (the request is incomplete, so Fastify has no reply for it) in the
 * service's error shape, then closes the connection. Without a filter, only closes it.
 */
function answerOnSocket(adapter: object, socket: Socket, exception: unknown): void {
  const answering = socketAnswerers.get(adapter);
  if (answering && socket.writable && socket.bytesWritten === 0) {
    const { problem, body, headers } = answering.answer(exception);
    const payload = JSON.stringify(body);
    const head = Object.entries({
      ...headers,
      'content-length': String(Buffer.byteLength(payload)),
      connection: 'close',
    })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.end(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n${head}\r\n\r\n${payload}`,
    );
    // A client that does not read must not keep the socket either.
    setTimeout(() => socket.destroy(), 1_000).unref();
    return;
  }
  socket.destroy();
}

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
    // A request that has not wholly arrived in time (e.g. a body trickling in) is answered
    // 408 on its socket, in the service's error shape.
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      answerOnSocket(adapter, socket, clientError(error));
    },
    http: { connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS },
    requestTimeout: DEFAULT_CONNECTION_SETTINGS.requestTimeoutMs,
    keepAliveTimeout: DEFAULT_CONNECTION_SETTINGS.keepAliveTimeoutMs,
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
  // Requests still arriving (Node stops enforcing requestTimeout once the server closes) are
  // answered 503 at once; requests in flight get until the shutdown deadline, then 503, and
  // every connection left is closed.
  let closing = false;
  const open = new Map<IncomingMessage, FastifyReply>();
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    open.set(raw, reply);
    reply.raw.once('close', () => open.delete(raw));
    done();
  });
  adapter.getInstance().addHook('preClose', (done) => {
    closing = true;
    const settings = connectionSettings.get(adapter) ?? DEFAULT_CONNECTION_SETTINGS;
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

/** Answers a request whose handler has not answered yet, in the service's error shape. */
function answerReply(adapter: object, reply: FastifyReply, exception: unknown): void {
  const answering = socketAnswerers.get(adapter);
  if (reply.sent || reply.raw.headersSent || !answering) return;
  const { problem, body, headers } = answering.answer(exception);
  void reply.code(problem.status).headers(headers).send(body);
}

/** The service is shutting down and will not take a request that has not wholly arrived. */
export class ShuttingDownError extends Error {
  readonly code = 'SHUTTING_DOWN';
  readonly statusCode = 503;

  constructor() {
    super('The service is shutting down; retry on another instance');
  }
}

/** Applies the connection timeouts from the environment to the adapter's server. */
export function configureConnections(app: INestApplication, settings: ConnectionSettings): void {
  const adapter = app.getHttpAdapter();
  connectionSettings.set(adapter, settings);
  const server = adapter.getHttpServer() as Server;
  server.requestTimeout = settings.requestTimeoutMs;
  // Node requires headersTimeout <= requestTimeout; the headers get the same budget.
  server.headersTimeout = settings.requestTimeoutMs;
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
}

/** Sends Fastify's own router errors through the service's exception filter, so they keep its error shape. */
export function routeFrameworkErrorsTo(app: INestApplication, filter: ExceptionFilter): void {
  if ('answer' in filter) socketAnswerers.set(app.getHttpAdapter(), filter as SocketAnswering);
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
