import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/*
 * A stub downstream service (node:http on 127.0.0.1, port 0): the only mock in this service's
 * tests. It stands for a downstream service that is slow, failing or gone, which the real
 * modules cannot be made to be on demand; it records every request it gets.
 */

export interface Hit {
  method: string;
  url: string;
  secret: string | undefined;
  /** The X-Request-Id and W3C traceparent headers the caller sent. */
  requestId: string | undefined;
  traceparent: string | undefined;
  body: string;
  /** Client port of the connection the request came on. */
  port: number | undefined;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, hit: Hit) => void;

export class StubServer {
  readonly hits: Hit[] = [];
  handler: Handler = (_req, res) => json(res, 200, {});
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const hit: Hit = {
          method: req.method ?? '',
          url: req.url ?? '',
          secret: req.headers['x-secret'] as string | undefined,
          requestId: req.headers['x-request-id'] as string | undefined,
          traceparent: req.headers.traceparent as string | undefined,
          body,
          port: req.socket.remotePort,
        };
        this.hits.push(hit);
        this.handler(req, res, hit);
      });
    });
  }

  async start(): Promise<string> {
    // Node's default 5 s would let the stub drop an idle pooled socket just as a slow CI run reuses it.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(handler: Handler): void {
    this.hits.length = 0;
    this.handler = handler;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
