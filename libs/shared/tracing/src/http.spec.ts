import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import axios from 'axios';
import Fastify, { FastifyInstance } from 'fastify';
import { correlationHeaders, REQUEST_ID_ATTRIBUTE, runWithRequestId } from './correlation';
import { HTTP_SPANS_SCOPE } from './instrumentations';
import { InMemoryTracing, registerInMemoryTracing } from './testing';
import { nameServerSpans } from './tracing';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN_ID = 'b7ad6b7169203331';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

/**
 * The HTTP server and client spans as startTracing configures `@opentelemetry/instrumentation-http`
 * (instrumentations.ts) and names them (nameServerSpans): a real Fastify app whose handler calls
 * a real downstream server through axios, as the gateways do.
 */
describe('HTTP spans', () => {
  let tracing: InMemoryTracing;
  let downstream: Server;
  let downstreamUrl: string;
  const received: IncomingHttpHeaders[] = [];
  let app: FastifyInstance;
  let appUrl: string;

  beforeAll(async () => {
    tracing = registerInMemoryTracing({ http: true });
    downstream = createServer((req, res) => {
      received.push(req.headers);
      res.writeHead(req.url?.startsWith('/missing') ? 404 : 200).end('{}');
    });
    await new Promise<void>((resolve) => downstream.listen(0, '127.0.0.1', resolve));
    downstreamUrl = `http://127.0.0.1:${(downstream.address() as AddressInfo).port}`;
    app = Fastify({ requestIdHeader: 'x-request-id' });
    nameServerSpans(app);
    app.addHook('preHandler', (request, _reply, done) => runWithRequestId(request.id, done));
    app.get('/things/:id', async (request) => {
      const { call } = request.query as { call?: string };
      if (call) {
        const res = await axios.get(`${downstreamUrl}${call}`, {
          headers: { ...correlationHeaders() },
          validateStatus: () => true,
        });
        return { status: res.status };
      }
      return { id: (request.params as { id: string }).id };
    });
    // A handler that runs after its body was read from the request's stream.
    app.post('/things', async (request) => {
      const { call } = request.body as { call: string };
      const res = await axios.get(`${downstreamUrl}${call}`, {
        headers: { ...correlationHeaders() },
      });
      return { status: res.status };
    });
    app.get('/fails', async (_request, reply) => reply.code(503).send({}));
    app.get('/api/health/ready', async () => ({ status: 'ok' }));
    appUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterEach(() => {
    tracing.memory.reset();
    received.length = 0;
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => downstream?.close(resolve));
    await tracing?.stop();
  });

  const spans = () => tracing.memory.getFinishedSpans();
  const ofKind = (kind: SpanKind) => spans().filter((s) => s.kind === kind);
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${appUrl}${path}`, { headers });
  /** The app's server spans (the downstream server's requests are traced too). */
  const appSpans = () => ofKind(SpanKind.SERVER).filter((s) => s.attributes['http.route']);
  /** The app's server span ends once its response is sent: wait for it. */
  const serverSpan = async (): Promise<ReadableSpan> => {
    for (let waited = 0; waited < 2_000; waited += 10) {
      const [span] = appSpans();
      if (span) return span;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('no server span');
  };

  it("a server span per request, named after its route, with the path and the caller's request id (no other header, no query)", async () => {
    const res = await get('/things/X1?pin=1234', {
      'x-request-id': 'r-server',
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`,
      'x-forwarded-for': '203.0.113.7',
      'user-agent': 'Ivanov-Browser/1.0',
    });
    expect(res.status).toBe(200);
    const span = await serverSpan();
    expect(span).toMatchObject({
      name: 'GET /things/:id',
      instrumentationScope: { name: HTTP_SPANS_SCOPE },
      status: { code: SpanStatusCode.UNSET },
      attributes: expect.objectContaining({
        'http.request.method': 'GET',
        'http.route': '/things/:id',
        'url.path': '/things/X1',
        'http.response.status_code': 200,
        [REQUEST_ID_ATTRIBUTE]: ['r-server'],
      }),
    });
    // Of the request's headers only the request id: no query, forwarded address or User-Agent.
    expect(span.attributes['url.query']).toBeUndefined();
    expect(JSON.stringify(span.attributes)).not.toMatch(/1234|203\.0\.113\.7|Ivanov/);
    // The caller's traceparent is continued.
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
  });

  it('records the request id Fastify generated when the caller sent none', async () => {
    await get('/things/X2');
    const span = await serverSpan();
    expect(span.attributes[REQUEST_ID_ATTRIBUTE]).toEqual([expect.stringMatching(/^req-/)]);
    expect(span.parentSpanContext).toBeUndefined();
  });

  it('a 5xx is an error, a 4xx is not; a probe has no span', async () => {
    await get('/fails');
    const failed = await serverSpan();
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.attributes['error.type']).toBe('503');
    tracing.memory.reset();
    await get('/things/X3?call=/missing');
    expect((await serverSpan()).status.code).toBe(SpanStatusCode.UNSET);
    tracing.memory.reset();
    expect((await get('/api/health/ready')).status).toBe(200);
    await get('/things/X4');
    await serverSpan();
    expect(ofKind(SpanKind.SERVER).map((s) => s.attributes['url.path'])).toEqual(['/things/X4']);
  });

  it('a client span per call under the server span: url.full without the query, the request id, its traceparent sent', async () => {
    await get('/things/X5?call=/users/U1?pin=1234', { 'x-request-id': 'r-client' });
    const server = await serverSpan();
    const [client] = ofKind(SpanKind.CLIENT);
    expect(client).toMatchObject({
      name: 'GET',
      instrumentationScope: { name: HTTP_SPANS_SCOPE },
      status: { code: SpanStatusCode.UNSET },
      attributes: expect.objectContaining({
        'http.request.method': 'GET',
        'server.address': '127.0.0.1',
        'url.full': `${downstreamUrl}/users/U1`,
        'http.response.status_code': 200,
        [REQUEST_ID_ATTRIBUTE]: ['r-client'],
      }),
    });
    expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    const { traceId, spanId } = client.spanContext();
    expect(received[0].traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(received[0]['x-request-id']).toBe('r-client');
  });

  // The context manager binds no request's emitters (context-manager.ts): Fastify itself runs the
  // handler in the request's context once the body has been read.
  it('a handler that read a body: its call is still under the server span, with its request id', async () => {
    const res = await fetch(`${appUrl}/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'r-body' },
      body: JSON.stringify({ call: '/users/U4', padding: 'x'.repeat(200_000) }),
    });
    expect(res.status).toBe(200);
    const server = await serverSpan();
    expect(server.name).toBe('POST /things');
    const [client] = ofKind(SpanKind.CLIENT);
    expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(received[0].traceparent).toBe(
      `00-${server.spanContext().traceId}-${client.spanContext().spanId}-01`,
    );
    expect(received[0]['x-request-id']).toBe('r-body');
  });

  it('a call answered 4xx is an error; one without an answer too', async () => {
    await get('/things/X6?call=/missing');
    await serverSpan();
    await context.with(
      trace.setSpan(ROOT_CONTEXT, tracing.provider.getTracer('test').startSpan('work')),
      () => axios.get('http://127.0.0.1:1/closed').catch(() => undefined),
    );
    const [answered, refused] = ofKind(SpanKind.CLIENT);
    expect(answered.status.code).toBe(SpanStatusCode.ERROR);
    expect(answered.attributes['error.type']).toBe('404');
    expect(refused.status.code).toBe(SpanStatusCode.ERROR);
    expect(refused.attributes['error.type']).toEqual(expect.any(String));
  });

  it('an unsampled request: no span, its trace passed on with flags 00; a call outside any span: none', async () => {
    await get('/things/X7?call=/users/U2', {
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-00`,
    });
    const [, traceId, parent, flags] = TRACEPARENT.exec(String(received[0].traceparent)) ?? [];
    expect([traceId, flags]).toEqual([TRACE_ID, '00']);
    expect(parent).not.toBe(CALLER_SPAN_ID);
    await axios.get(`${downstreamUrl}/users/U3`);
    expect(received[1].traceparent).toBeUndefined();
    expect([...appSpans(), ...ofKind(SpanKind.CLIENT)]).toEqual([]);
  });
});
