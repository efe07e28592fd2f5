import { randomUUID } from 'node:crypto';
import { IncomingMessage, STATUS_CODES, Server } from 'node:http';
import { Socket } from 'node:net';
import { ArgumentsHost, ExceptionFilter, INestApplication, Logger } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { instrumentFastify, REQUEST_ID_HEADER, runWithRequestId } from '@bank/shared/tracing';
import { TRUST_NOBODY, TrustProxy } from './trust-proxy';
import { MethodNotAllowedError, ROUTER_OPTIONS, RouteMethods } from './route-methods';

export { REQUEST_ID_HEADER };
const BODY_LIMIT_BYTES = 1024 * 1024;
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

/**
 * Headers every answer carries (security headers, no caching), per adapter: set by
 * configureHttpApp, added here to the answers no request hook sees (a client error on the bare
 * socket, an error of Fastify's router).
 */
const baseHeaders = new WeakMap<object, Record<string, string>>();

/** Registers the headers of every answer (see baseHeaders) and adds them to each request's reply. */
export function setResponseHeaders(app: INestApplication, headers: Record<string, string>): void {
  const adapter = app.getHttpAdapter();
  baseHeaders.set(adapter, headers);
  (adapter as unknown as FastifyAdapter)
    .getInstance()
    .addHook('onRequest', (_request, reply, done) => {
      void reply.headers(headers);
      done();
    });
}
/** The methods of every route of the adapter (filled by its onRoute hook). */
const routeMethods = new WeakMap<object, RouteMethods>();

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

/** Which proxies are trusted, per adapter (see configureTrustProxy). */
const trustSettings = new WeakMap<object, TrustProxy>();

/**
 * Sets which peers' X-Forwarded-For the adapter believes (TRUST_PROXY): request.ip, the rate
 * limit's key, is the nearest address not trusted. Until this is called, nobody is trusted.
 */
export function configureTrustProxy(app: INestApplication, trust: TrustProxy): void {
  trustSettings.set(app.getHttpAdapter(), trust);
}

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
      ...baseHeaders.get(adapter),
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
 * Nest's Fastify adapter parses application/x-www-form-urlencoded besides JSON: a form body
 * would reach validation as an object and be answered field by field. Every body of these
 * services is JSON, so the form parser is removed as soon as Nest has registered it, and a
 * form (like any type but JSON) is 415, never parsed.
 */
class JsonOnlyFastifyAdapter extends FastifyAdapter {
  override registerParserMiddleware(prefix?: string, rawBody?: boolean): void {
    super.registerParserMiddleware(prefix, rawBody);
    const fastify = this.getInstance();
    if (fastify.hasContentTypeParser('application/x-www-form-urlencoded'))
      fastify.removeContentTypeParser('application/x-www-form-urlencoded');
  }
}

/**
 * Fastify with the 1 MiB body limit and a request id taken from X-Request-Id or generated.
 * Errors Fastify's router raises before Nest sees the request (a malformed URL, a parameter
 * over 200 characters) go to the service's error filter too (see routeFrameworkErrorsTo).
 */
export function createHttpAdapter(): FastifyAdapter {
  const adapter: FastifyAdapter = new JsonOnlyFastifyAdapter({
    frameworkErrors: (
      error: Error & { statusCode?: number },
      request: FastifyRequest,
      reply: FastifyReply,
    ) => {
      // The router fails before any request hook has run: the base headers are not on the reply yet.
      void reply.headers(baseHeaders.get(adapter) ?? {});
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
    // TRUST_PROXY, applied by configureTrustProxy once the environment is known.
    trustProxy: (address: string, hop: number) =>
      (trustSettings.get(adapter) ?? TRUST_NOBODY)(address, hop),
    routerOptions: { ...ROUTER_OPTIONS },
    requestIdHeader: false,
    genReqId: (req: IncomingMessage) => {
      const incoming = req.headers[REQUEST_ID_HEADER];
      return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming)
        ? incoming
        : randomUUID();
    },
  });
  // While tracing runs: the request's server span named after its route, with its request id.
  instrumentFastify(adapter.getInstance());
  const routes = new RouteMethods();
  routeMethods.set(adapter, routes);
  adapter.getInstance().addHook('onRoute', (route) => routes.add(route.method, route.url));
  // A request no route matched, on a path some route has under another method, is 405 with
  // Allow, not Nest's 404: the resource exists (in the error shape, through the service's filter).
  const setNotFoundHandler = adapter.setNotFoundHandler.bind(adapter);
  adapter.setNotFoundHandler = (handler: (request: FastifyRequest, reply: FastifyReply) => void) =>
    setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
      const allowed = routes.allowedMethods(request.url);
      if (allowed.length === 0) return handler(request, reply);
      const error = new MethodNotAllowedError(request.method, allowed);
      const errorHandler = frameworkErrorHandlers.get(adapter);
      if (errorHandler) return errorHandler(error, request, reply);
      void reply
        .code(error.statusCode)
        .header('allow', allowed.join(', '))
        .send({ statusCode: error.statusCode, message: error.message });
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
  // The handler and everything it awaits run under the request id, so the downstream calls it
  // makes forward it (GatewayHttp) and the outbox messages it writes keep it. (preHandler: the
  // body has been read by then, so no stream callback leaves the scope.)
  adapter
    .getInstance()
    .addHook('preHandler', (request, _reply, done) => runWithRequestId(request.id, done));
  return adapter;
}

/** The methods each path of the app's routes supports (see RouteMethods). */
export function routeMethodsOf(app: INestApplication): RouteMethods {
  const routes = routeMethods.get(app.getHttpAdapter());
  if (!routes) throw new Error('The app was not created on createHttpAdapter()');
  return routes;
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
