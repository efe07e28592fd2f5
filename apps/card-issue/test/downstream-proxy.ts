import { createServer, IncomingMessage, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** Called with each exchange after the upstream answered and before the answer is passed on. */
export type BeforeAnswer = (exchange: {
  method: string;
  url: string;
  status: number;
}) => Promise<void>;

/**
 * A loopback HTTP proxy in front of a real downstream service, for faults on the way back: the
 * service does its work (e.g. creates the user), and the proxy holds the answer back (a timeout
 * at the caller) or lets the test kill the caller first. Everything else passes unchanged.
 */
export class DownstreamProxy {
  beforeAnswer: BeforeAnswer = () => Promise.resolve();
  private readonly server: Server;

  /** Base URL of the service behind the proxy; may be set after the proxy starts. */
  constructor(public target = '') {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const upstream = httpRequest(
          `${this.target}${req.url ?? ''}`,
          { method: req.method, headers: forwardable(req) },
          (answer) => {
            const body: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => body.push(chunk));
            answer.on('end', () => {
              const exchange = {
                method: req.method ?? '',
                url: req.url ?? '',
                status: answer.statusCode ?? 502,
              };
              void this.beforeAnswer(exchange).then(() => {
                if (res.destroyed) return;
                res.writeHead(exchange.status, { 'content-type': 'application/json' });
                res.end(Buffer.concat(body));
              });
            });
          },
        );
        upstream.on('error', () => res.destroy());
        upstream.end(Buffer.concat(chunks));
      });
    });
  }

  /** Listens on a free loopback port; returns its base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function forwardable(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && name !== 'host' && name !== 'connection')
      headers[name] = value;
  }
  return headers;
}
