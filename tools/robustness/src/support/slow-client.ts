import { connect } from 'node:net';
import { HttpResult } from './http';

export interface SlowClient {
  /** The answer the server gave (status 0 when it closed without one), once the connection ends. */
  ended: Promise<HttpResult>;
  /** Body bytes sent so far. */
  sent(): number;
  stop(): void;
}

/**
 * A client that sends a request's headers at once and then its body one byte per interval,
 * far slower than any real client: it would take `contentLength * intervalMs` to finish.
 * Bounded: it stops sending after the declared length, and the caller stops it.
 */
export function slowBodyClient(
  origin: string,
  path: string,
  contentLength: number,
  intervalMs: number,
): SlowClient {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname, port: Number(port) });
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const chunks: Buffer[] = [];
  socket.on('connect', () => {
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `content-length: ${contentLength}\r\n\r\n{`,
    );
    sent = 1;
    timer = setInterval(() => {
      if (sent >= contentLength - 1 || socket.destroyed) return clearInterval(timer);
      socket.write(' ');
      sent++;
    }, intervalMs);
  });
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<HttpResult>((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      const response = Buffer.concat(chunks).toString('utf8');
      const split = response.indexOf('\r\n\r\n');
      const head = split >= 0 ? response.slice(0, split) : response;
      const text = split >= 0 ? response.slice(split + 4) : '';
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0)
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = undefined;
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
      resolve({ status, headers, text, body });
    });
  });
  return {
    ended,
    sent: () => sent,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}
