import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { HTTP_SPANS_SCOPE } from '@bank/shared/tracing';
import { registerInMemoryTracing } from '@bank/shared/tracing/testing';
import { closedPort } from '@bank/shared/testing';
import { WebhookTargetPolicy } from '@bank/shared/webhooks';
import { publicAttemptError } from './webhook-attempt-errors';
import { WebhookSender } from './webhook-sender';

/** The traceparent a delivery carries from the POST that caused it (sampled flag on). */
const STORED_TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/**
 * A webhook attempt as tracing sees it: a real receiver on a loopback port, the SDK and the HTTP
 * instrumentation registered as main.ts does (spans kept in memory). In a traced delivery the
 * attempt is a client span whose traceparent the receiver gets; outside one the delivery's own
 * headers go as they are.
 */
describe('WebhookSender: the attempt’s client span', () => {
  const tracing = registerInMemoryTracing({ http: true });
  const { memory, provider } = tracing;
  const sender = new WebhookSender(
    new WebhookTargetPolicy({ production: false, allowedCidrs: ['127.0.0.0/8'] }),
  );
  const received: IncomingHttpHeaders[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(req.headers);
      req.resume().on('end', () => res.writeHead(req.url === '/fails' ? 500 : 204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => {
    memory.reset();
    received.length = 0;
  });

  afterAll(async () => {
    sender.onModuleDestroy();
    await new Promise((resolve) => server.close(resolve));
    await tracing.stop();
  });

  const post = (path: string) =>
    sender.post({
      url: `${url}${path}`,
      body: '{}',
      headers: { 'Content-Type': 'application/json', traceparent: STORED_TRACEPARENT },
      timeoutMs: 2_000,
    });
  /** Runs `work` in a delivery's recording span, as continueTrace does. */
  const inDelivery = async <T>(work: () => Promise<T>): Promise<T> => {
    const delivery = provider.getTracer('test').startSpan('webhook deliver', {
      kind: SpanKind.CONSUMER,
    });
    try {
      return await context.with(trace.setSpan(ROOT_CONTEXT, delivery), work);
    } finally {
      delivery.end();
    }
  };
  const clientSpans = () => memory.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);

  it('in a traced delivery: a client span under it, whose traceparent the receiver gets', async () => {
    const result = await inDelivery(() => post('/in?token=secret'));
    expect(result.statusCode).toBe(204);
    const [span] = clientSpans();
    expect(span).toMatchObject({
      name: 'POST',
      instrumentationScope: { name: HTTP_SPANS_SCOPE },
      status: { code: SpanStatusCode.UNSET },
      attributes: expect.objectContaining({
        'url.full': `${url}/in`,
        'http.response.status_code': 204,
      }),
    });
    const delivery = memory.getFinishedSpans().find((s) => s.name === 'webhook deliver');
    expect(span.parentSpanContext?.spanId).toBe(delivery?.spanContext().spanId);
    const { traceId, spanId } = span.spanContext();
    expect(received[0].traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });

  it("outside a traced delivery: no span, the delivery's own traceparent sent", async () => {
    await post('/in');
    // (The receiver here is traced too: its server span continues the stored traceparent.)
    expect(clientSpans()).toEqual([]);
    expect(received[0].traceparent).toBe(STORED_TRACEPARENT);
  });

  it('a 5xx answer and a refused connection are errors, with an error.type', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const answered = await inDelivery(() => post('/fails'));
    const refused = await inDelivery(() =>
      sender.post({
        url: `http://127.0.0.1:${closedPort}/in`,
        body: '{}',
        headers: {},
        timeoutMs: 2_000,
      }),
    );
    expect([answered.statusCode, refused.statusCode]).toEqual([500, null]);
    expect(clientSpans().map((s) => [s.status.code, s.attributes['error.type']])).toEqual([
      [SpanStatusCode.ERROR, '500'],
      // The error's name: the instrumentation's choice.
      [SpanStatusCode.ERROR, 'Error'],
    ]);
  });
});

/**
 * What a failed attempt records: one of four texts, never an address, a port or what a resolver
 * answered (the delivery log is read by API clients, who must not learn the internal network
 * from it); the details go to the service's own log line.
 */
describe('WebhookSender: what a failed attempt says', () => {
  /** A resolver where `internal.example` is 10.1.2.3 and `gone.example` does not exist. */
  const resolve = ((
    hostname: string,
    _options: unknown,
    callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    if (hostname === 'internal.example') callback(null, [{ address: '10.1.2.3', family: 4 }]);
    else
      callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
        [],
      );
  }) as unknown as typeof import('node:dns').lookup;
  const sender = new WebhookSender(
    new WebhookTargetPolicy({ production: false, allowedCidrs: ['127.0.0.0/8'], resolve }),
  );
  let server: Server;
  let port: number;
  const silent = new Set<Socket>();
  let silentServer: NetServer;
  let silentPort: number;
  let closedPortNumber = 0;

  beforeAll(async () => {
    closedPortNumber = await closedPort();
    server = createServer((req, res) =>
      req.resume().on('end', () => res.writeHead(503).end('internal detail')),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    silentServer = createNetServer((socket) => silent.add(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
    silentPort = (silentServer.address() as AddressInfo).port;
  });

  afterAll(async () => {
    sender.onModuleDestroy();
    for (const socket of silent) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    await new Promise((resolve) => silentServer.close(resolve));
  });

  const attempt = (url: string, timeoutMs = 2_000) =>
    sender.post({ url, body: '{}', headers: {}, timeoutMs });

  it.each([
    [
      'a name that resolves to a private address',
      'target refused',
      () => 'http://internal.example/hook',
    ],
    ['a private address in the URL', 'target refused', () => 'http://10.0.0.1/hook'],
    ['a name that does not resolve', 'connection failed', () => 'http://gone.example/hook'],
    [
      'a port nobody listens on',
      'connection failed',
      () => `http://127.0.0.1:${closedPortNumber}/hook`,
    ],
    ['a receiver that never answers', 'timeout', () => `http://127.0.0.1:${silentPort}/hook`],
    ['an answer other than 2xx', 'HTTP 503', () => `http://127.0.0.1:${port}/hook`],
  ])('%s: %s', async (_case, error, url) => {
    const result = await attempt(url(), 300);
    expect(result.error).toBe(error);
    // The details stay in the result for the log line, not in what is stored.
    if (error !== 'HTTP 503') expect(result.detail).toEqual(expect.any(String));
  });

  it('keeps the resolver answer and the address for the log line only', async () => {
    const refused = await attempt('http://internal.example/hook');
    expect(refused.detail).toContain('10.1.2.3');
    const closed = await attempt(`http://127.0.0.1:${closedPortNumber}/hook`);
    expect(closed.detail).toMatch(/ECONNREFUSED/);
  });

  it.each([
    ['HTTP 500', 'HTTP 500'],
    ['timeout after 300 ms', 'timeout'],
    [
      'target refused (address-not-allowed): internal.example resolves only to refused addresses (10.1.2.3)',
      'target refused',
    ],
    ['ECONNREFUSED: connect ECONNREFUSED 10.0.0.7:5432', 'connection failed'],
    ['ENOTFOUND: getaddrinfo ENOTFOUND db.internal', 'connection failed'],
    ['socket hang up', 'connection failed'],
    [null, null],
  ])('what an earlier version stored, %j, reads as %j', (stored, shown) => {
    expect(publicAttemptError(stored)).toBe(shown);
  });
});
