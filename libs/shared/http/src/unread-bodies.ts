import { IncomingMessage, Server } from 'node:http';
import { Socket } from 'node:net';
import { LINGER_MS } from './error-answers';

/** The request each connection carries now (the last one begun on it). */
const currentRequests = new WeakMap<Socket, IncomingMessage>();

/**
 * Closes a connection whose request body was not wholly read, gracefully. Fastify answers a
 * body over the limit (413) before reading the rest of it, with `Connection: close` (as after
 * any error of a body parser); Node's server then ends the socket and destroys it as soon as
 * the answer is out (`destroySoon`), while the client may still be sending the body. The kernel resets a
 * connection that receives data after it is closed, and a client that had not yet read the
 * answer lost it (Node's fetch: "other side closed", EPIPE). Here such a socket is only ended:
 * the answer and the FIN go out, the rest of the body is read and dropped (Node's server dumps
 * it), and the socket is destroyed when the client closes its side, or after LINGER_MS, as a
 * header overflow's 431 is (answerOnSocket). A connection whose request was complete closes as
 * before.
 */
export function endGentlyOnUnreadBodies(server: Server): void {
  server.on('request', (request: IncomingMessage) => currentRequests.set(request.socket, request));
  server.on('connection', (socket: Socket) => {
    const destroySoon = socket.destroySoon.bind(socket);
    socket.destroySoon = () => {
      const request = currentRequests.get(socket);
      if (!request || request.complete || !socket.writable) return destroySoon();
      socket.end();
      // A client that neither closes nor stops sending must not keep the socket.
      const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
      socket.once('close', () => clearTimeout(linger));
    };
  });
}
