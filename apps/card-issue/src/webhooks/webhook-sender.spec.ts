import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { HTTP_SPANS_SCOPE } from '@bank/shared/tracing';
import { registerInMemoryTracing } from '@bank/shared/tracing/testing';
import { WebhookTargetPolicy } from '@bank/shared/webhooks';
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
