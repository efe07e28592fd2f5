import { connect } from 'node:net';

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** One JSON request over real HTTP (keep-alive), with a hard deadline so nothing hangs a test. */
export async function sendJson(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<HttpResult> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
    body: parseJson(text),
  };
}

/**
 * Sends bytes exactly as given (no client-side fixing of the request line, headers or
 * length) and reads the response until the server closes the connection.
 */
export function sendRaw(
  origin: string,
  raw: string | Buffer,
  timeoutMs = 15_000,
): Promise<HttpResult> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms`));
    }, timeoutMs);
    // write, not end: a half-closed socket makes Node drop a response still being computed.
    socket.on('connect', () => socket.write(raw));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      // The server may close after answering while we are still writing (e.g. 413).
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const response = Buffer.concat(chunks).toString('utf8');
      const split = response.indexOf('\r\n\r\n');
      const head = split >= 0 ? response.slice(0, split) : response;
      let text = split >= 0 ? response.slice(split + 4) : '';
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0)
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      if (headers['transfer-encoding'] === 'chunked') text = dechunk(text);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      resolve({ status, headers, text, body: parseJson(text) });
    });
  });
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** A complete HTTP/1.1 request with Connection: close and a correct Content-Length. */
export function rawRequest(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Buffer {
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers: Record<string, string> = {
    host: '127.0.0.1',
    connection: 'close',
    ...options.headers,
  };
  if (body && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(body.length);
  }
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return body ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
}
