import { Server, ServerResponse, STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { ArgumentsHost, ExceptionFilter, INestApplication } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fastifyAdapterOf } from './adapter-of';
import { responseHeadersOf } from './response-headers';

type FrameworkErrorHandler = (error: Error, request: FastifyRequest, reply: FastifyReply) => void;

/** The service's error filter, per adapter (set by installErrorAnswers). */
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

/** The last response begun on each connection (see responseInFlight). */
const lastResponses = new WeakMap<object, ServerResponse>();

/**
 * Sends Fastify's own router errors through the service's exception filter, so they keep its
 * error shape; a filter that can answer outside a request (see SocketAnswering) answers the
 * client errors on a bare socket and the requests the shutdown cuts short too.
 */
export function installErrorAnswers(app: INestApplication, filter: ExceptionFilter): void {
  const adapter = fastifyAdapterOf(app);
  if ('answer' in filter) socketAnswerers.set(adapter, filter as SocketAnswering);
  adapter
    .getHttpServer<Server>()
    .on('request', (request, response: ServerResponse) =>
      lastResponses.set(request.socket, response),
    );
  frameworkErrorHandlers.set(adapter, (error, request, reply) => {
    const http = { getRequest: () => request, getResponse: () => reply, getNext: () => undefined };
    const host = {
      switchToHttp: () => http,
      getType: () => 'http',
      getArgs: () => [request, reply],
    };
    filter.catch(error, host as unknown as ArgumentsHost);
  });
}

/** The service's filter as a handler of framework errors; undefined before installErrorAnswers. */
export function frameworkErrorHandlerOf(adapter: object): FrameworkErrorHandler | undefined {
  return frameworkErrorHandlers.get(adapter);
}

/** The adapter's frameworkErrors: the service's filter answers them, else a bare JSON body. */
export function answerFrameworkError(
  adapter: object,
  error: Error & { statusCode?: number },
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  // The router fails before any request hook has run: the base headers are not on the reply yet.
  void reply.headers(responseHeadersOf(adapter));
  const handler = frameworkErrorHandlers.get(adapter);
  if (handler) return handler(error, request, reply);
  void reply
    .code(error.statusCode ?? 400)
    .send({ statusCode: error.statusCode ?? 400, message: error.message });
}

/** The adapter's clientErrorHandler: answers on the socket (see answerOnSocket). */
export function answerClientError(
  adapter: object,
  error: Error & { code?: string },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  answerOnSocket(adapter, socket, clientError(error));
}

/** Client errors Node raises on a socket (no request object yet), as the filter knows them. */
function clientError(error: Error & { code?: string }): object {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADER_OVERFLOW')
    return error;
  return { code: 'CLIENT_ERROR', statusCode: 400, message: 'Malformed HTTP request' };
}

/**
 * Whether a response on the connection has begun and not wholly gone out: an answer written
 * on the socket now would land inside it. A keep-alive connection whose earlier responses
 * are complete has none.
 */
function responseInFlight(socket: Socket): boolean {
  const response = lastResponses.get(socket);
  return !!response && response.headersSent && !response.writableFinished;
}

/** The connections answered on their socket (see answerOnSocket). */
const answeredSockets = new WeakSet<Socket>();

/**
 * How long an answered connection may stay half-closed while the client finishes sending and
 * reads the answer (nginx's lingering_timeout has the same default); then it is destroyed.
 */
export const LINGER_MS = 5_000;

/**
 * Answers on a bare socket (the request is incomplete, so Fastify has no reply for it) in the
 * service's error shape, then closes the connection gracefully: `end()` sends the answer and
 * the FIN, and the rest of the request the client is still sending is read and dropped (each
 * further chunk raises the client error again and is ignored here) until the client closes its
 * side, at most LINGER_MS. Destroying the socket at once would make the kernel reset the
 * connection on the unread rest, and a client that had not yet read the answer would lose it
 * ("other side closed"). Without a filter, or with a response already under way on the
 * connection, only closes it.
 */
export function answerOnSocket(adapter: object, socket: Socket, exception: unknown): void {
  if (answeredSockets.has(socket)) return;
  const answering = socketAnswerers.get(adapter);
  if (!answering || !socket.writable || responseInFlight(socket)) {
    socket.destroy();
    return;
  }
  answeredSockets.add(socket);
  const { problem, body, headers } = answering.answer(exception);
  const payload = JSON.stringify(body);
  const head = Object.entries({
    ...responseHeadersOf(adapter),
    ...headers,
    'content-length': String(Buffer.byteLength(payload)),
    connection: 'close',
  })
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n${head}\r\n\r\n${payload}`,
  );
  // A client that neither closes nor reads must not keep the socket.
  const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}

/** Answers a request whose handler has not answered yet, in the service's error shape. */
export function answerReply(adapter: object, reply: FastifyReply, exception: unknown): void {
  const answering = socketAnswerers.get(adapter);
  if (reply.sent || reply.raw.headersSent || !answering) return;
  const { problem, body, headers } = answering.answer(exception);
  void reply.code(problem.status).headers(headers).send(body);
}
