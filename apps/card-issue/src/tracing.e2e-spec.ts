import { Client } from 'pg';
import request from 'supertest';
import {
  createTestDatabase,
  eventually,
  OtlpReceiver,
  ReceivedSpan,
  SPAN_KIND,
  startOtlpReceiver,
  TestDatabase,
  TestServiceProcess,
} from '@bank/shared/testing';
import { HTTP_SPANS_SCOPE, PG_SPANS_SCOPE } from '@bank/shared/tracing';
import { spawnCardIssue } from '../test/card-issue.harness';
import { selfVirtual } from '../test/card-issue-requests.fixture';
import { json, StubServer } from '../test/stub-server';
import { createUser } from '../test/users.fixture';

const API = '/api/v1/card-issue';
const REQUEST_ID_ATTRIBUTE = 'http.request.header.x-request-id';

async function traceContextOf(databaseUrl: string, requestId: string): Promise<unknown> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ trace_context: unknown }>(
      `SELECT trace_context FROM outbox_messages WHERE request_id = $1`,
      [requestId],
    );
    return rows[0]?.trace_context;
  } finally {
    await client.end();
  }
}

/**
 * Traces as an operator's collector receives them: the service runs as its own process (the SDK
 * must start before the modules it patches are loaded, as main.ts does it) and exports OTLP/HTTP
 * JSON to a local receiver. The assertions follow the parent links span by span.
 */
describe('traces exported over OTLP (e2e, service as a process)', () => {
  let db: TestDatabase;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_tracing');
    receiver = await startOtlpReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await db?.drop();
  });

  const spans = () => receiver.spans;
  const byId = (spanId: string) => spans().find((s) => s.spanId === spanId);
  /** The span's ancestors, nearest first, as far as they were exported. */
  const ancestorsOf = (span: ReceivedSpan): ReceivedSpan[] => {
    const chain: ReceivedSpan[] = [];
    for (let parent = byId(span.parentSpanId); parent; parent = byId(parent.parentSpanId))
      chain.push(parent);
    return chain;
  };
  const descends = (span: ReceivedSpan, ancestor: ReceivedSpan) =>
    ancestorsOf(span).some((s) => s.spanId === ancestor.spanId);
  const childrenOf = (span: ReceivedSpan) => spans().filter((s) => s.parentSpanId === span.spanId);
  const isHttpClient = (s: ReceivedSpan) =>
    s.kind === SPAN_KIND.CLIENT && s.scope === HTTP_SPANS_SCOPE;

  describe('one service process exporting every 50 ms', () => {
    let service: TestServiceProcess;

    beforeAll(async () => {
      service = await spawnCardIssue({
        DATABASE_URL: db.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
        SCHEDULER_ENABLED: 'false',
        OUTBOX_TICK_MS: '100',
      });
    });

    afterAll(async () => {
      await service?.stop('SIGTERM');
    });

    it('a POST: the server span -> pg, the user GET with traceparent and X-Request-Id, and the outbox delivery in the same trace', async () => {
      const owner = await createUser(service.url);
      const res = await request(service.url)
        .post(API)
        .set('X-Request-Id', 'trace-e2e-post')
        .send(selfVirtual(owner));
      expect(res.status).toBe(201);
      const requestId = res.body.requestId as string;

      const isDelivery = (s: ReceivedSpan) =>
        s.name === 'outbox deliver operation.create' &&
        s.attributes['card_issue.request_id'] === requestId;
      // The delivery's own children (the call to the operation service) come with or before it.
      await eventually(async () => {
        const delivery = spans().find(isDelivery);
        return !!delivery && childrenOf(delivery).some(isHttpClient);
      }, 30_000);

      // The incoming request: a root server span of the HTTP instrumentation carrying the
      // caller's request id, named after its route (Nest's guards, pipes and controller run in
      // it). One span per request: none per Fastify hook or Nest handler.
      const server = spans().find(
        (s) =>
          s.kind === SPAN_KIND.SERVER &&
          s.name === 'POST /api/v1/card-issue' &&
          (s.attributes[REQUEST_ID_ATTRIBUTE] as string[] | undefined)?.[0] === 'trace-e2e-post',
      );
      if (!server) throw new Error('no server span for the POST');
      // Exported in OTLP's default encoding.
      expect(receiver.protocols()).toEqual(['http/protobuf']);
      expect(server.service).toBe('card-issue');
      expect(server.parentSpanId).toBe('');
      const trace = spans().filter((s) => s.traceId === server.traceId);

      expect(server).toMatchObject({
        scope: HTTP_SPANS_SCOPE,
        attributes: expect.objectContaining({
          'http.route': '/api/v1/card-issue',
          'http.request.method': 'POST',
          'url.path': '/api/v1/card-issue',
          'http.response.status_code': 201,
        }),
      });
      expect(server.attributes['url.query']).toBeUndefined();
      const handler = server;
      const serverSpans = trace.filter((s) => s.kind === SPAN_KIND.SERVER);
      expect(serverSpans.map((s) => s.scope)).toEqual(serverSpans.map(() => HTTP_SPANS_SCOPE));
      // HTTP, pg and the outbox's own spans: nothing else (no Fastify or Nest instrumentation).
      expect([...new Set(trace.map((s) => s.scope))].sort()).toEqual(
        ['@bank/shared/tracing', HTTP_SPANS_SCOPE, PG_SPANS_SCOPE].sort(),
      );

      // The statement that stores the request, under the handler.
      const insert = trace.find(
        (s) =>
          s.scope === PG_SPANS_SCOPE &&
          String(s.attributes['db.query.text']).includes('INSERT INTO card_issue_requests'),
      );
      if (!insert || !handler) throw new Error('no pg span of the INSERT');
      expect(descends(insert, handler)).toBe(true);
      // Statements only: no span per pool checkout (or connection).
      expect(trace.filter((s) => /^pg(-pool)?\.connect/.test(s.name))).toEqual([]);

      // The GET of the owner: a client span under the handler, and the user service's server
      // span a child of it (traceparent received), with the request id forwarded.
      const userCall = trace.find(
        (s) =>
          isHttpClient(s) &&
          String(s.attributes['url.full']).includes(`/user-api/api/v1/users/${owner}`),
      );
      if (!userCall) throw new Error('no client span of the user GET');
      expect(descends(userCall, handler)).toBe(true);
      expect(userCall).toMatchObject({
        name: 'GET',
        attributes: expect.objectContaining({
          'http.request.method': 'GET',
          'http.response.status_code': 200,
        }),
      });
      expect(userCall.attributes[REQUEST_ID_ATTRIBUTE]).toEqual(['trace-e2e-post']);
      const userServer = spans().find((s) => s.parentSpanId === userCall.spanId);
      expect(userServer).toMatchObject({
        kind: SPAN_KIND.SERVER,
        traceId: server.traceId,
        name: 'GET /user-api/api/v1/users/:id',
      });
      expect(userServer?.attributes[REQUEST_ID_ATTRIBUTE]).toEqual(['trace-e2e-post']);

      // The outbox message kept the POST's trace context, written with the request.
      const message = await traceContextOf(db.url, requestId);
      expect(message).toEqual({
        traceparent: expect.stringMatching(new RegExp(`^00-${server.traceId}-[0-9a-f]{16}-01$`)),
        'x-request-id': 'trace-e2e-post',
      });

      // Its delivery: a consumer span in the POST's trace, under the handler that wrote it; its
      // call to the operation service continues the trace, with the POST's request id.
      const delivery = spans().find(isDelivery);
      if (!delivery) throw new Error('no delivery span');
      expect(delivery.kind).toBe(SPAN_KIND.CONSUMER);
      expect(delivery.traceId).toBe(server.traceId);
      expect(descends(delivery, server)).toBe(true);
      const operationCall = childrenOf(delivery).find(isHttpClient);
      expect(operationCall?.attributes[REQUEST_ID_ATTRIBUTE]).toEqual(['trace-e2e-post']);
      await eventually(async () => spans().some((s) => s.parentSpanId === operationCall?.spanId));
      const operationServer = spans().find((s) => s.parentSpanId === operationCall?.spanId);
      expect(operationServer).toMatchObject({
        kind: SPAN_KIND.SERVER,
        traceId: server.traceId,
        name: 'POST /operation-api/api/v1/operations',
      });
      expect(operationServer?.attributes[REQUEST_ID_ATTRIBUTE]).toEqual(['trace-e2e-post']);
      expect(trace.filter((s) => s.parentSpanId === '')).toEqual([server]);
    });

    it("continues a caller's trace (W3C traceparent) and leaves probes untraced", async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const callerSpan = '00f067aa0ba902b7';
      const res = await request(service.url)
        .get(`${API}/RCARDB01012020000001`)
        .set('traceparent', `00-${traceId}-${callerSpan}-01`);
      expect(res.status).toBe(404);
      await eventually(async () => spans().some((s) => s.traceId === traceId));
      const server = spans().find((s) => s.traceId === traceId && s.kind === SPAN_KIND.SERVER);
      expect(server).toMatchObject({
        name: 'GET /api/v1/card-issue/:id',
        parentSpanId: callerSpan,
      });
      // The harness polled /api/health until the service answered: no span for it.
      expect(
        spans().filter((s) => String(s.attributes['url.path']).includes('/api/health')),
      ).toEqual([]);
    });
  });

  it('exports the spans still buffered when SIGTERM comes, under OTEL_SERVICE_NAME', async () => {
    const service = await spawnCardIssue({
      DATABASE_URL: db.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      // Far beyond the test: only the flush at shutdown can send them.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      OTEL_SERVICE_NAME: 'card-issue-canary',
      SCHEDULER_ENABLED: 'false',
      OUTBOX_ENABLED: 'false',
    });
    const res = await request(service.url)
      .get(`${API}/RCARDB01012020000002`)
      .set('X-Request-Id', 'trace-e2e-shutdown');
    expect(res.status).toBe(404);
    await service.stop('SIGTERM');
    // Nest re-raises the signal once its shutdown hooks (the flush among them) are done.
    expect(await service.exited).toBe('SIGTERM');
    const server = spans().find(
      (s) =>
        s.kind === SPAN_KIND.SERVER &&
        (s.attributes[REQUEST_ID_ATTRIBUTE] as string[] | undefined)?.[0] === 'trace-e2e-shutdown',
    );
    expect(server?.service).toBe('card-issue-canary');
  });

  /**
   * Head sampling at 0 % for new traces: a request is sampled (or not) before any instrumentation
   * runs for it. An unsampled one makes no span, yet its downstream calls and its outbox message
   * carry its trace (W3C traceparent, sampled flag off) and its request id; a caller's decision
   * wins (parent-based).
   */
  describe('sampled at 0 % (parentbased_traceidratio), downstream services stubbed', () => {
    const userService = new StubServer();
    const operationService = new StubServer();
    let service: TestServiceProcess;
    const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

    beforeAll(async () => {
      const [usersUrl, operationsUrl] = await Promise.all([
        userService.start(),
        operationService.start(),
      ]);
      userService.reset((_req, res) => json(res, 404, { message: 'not found' }));
      operationService.reset((_req, res) => json(res, 503, { message: 'down' }));
      service = await spawnCardIssue({
        DATABASE_URL: db.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
        USER_API_URL: usersUrl,
        OPERATION_API_URL: operationsUrl,
        SCHEDULER_ENABLED: 'false',
        OUTBOX_TICK_MS: '100',
        OUTBOX_RETRY_BASE_MS: '60000',
        DOWNSTREAM_RETRIES: '0',
      });
    });

    afterAll(async () => {
      await service?.stop('SIGTERM');
      await Promise.all([userService.stop(), operationService.stop()]);
    });

    const post = (requestId: string, owner: string, traceparent?: string) => {
      const call = request(service.url).post(API).set('X-Request-Id', requestId);
      return (traceparent ? call.set('traceparent', traceparent) : call).send(selfVirtual(owner));
    };
    const userCallOf = (owner: string) => userService.hits.find((hit) => hit.url.includes(owner));
    const operationCallOf = (requestId: string) =>
      operationService.hits.find((hit) => hit.requestId === requestId);

    it('an unsampled request: no span, its trace on the user call, the outbox message and its delivery', async () => {
      const root = await post('unsampled-root', 'XUNSA1');
      const callerTraceId = '0af7651916cd43dd8448eb211c80319c';
      const child = await post(
        'unsampled-child',
        'XUNSA2',
        `00-${callerTraceId}-b7ad6b7169203331-00`,
      );
      // A caller that sampled its trace: traced here as well, whatever the ratio.
      const sampledTraceId = '4bf92f3577b34da6a3ce929d0e0e4737';
      const sampled = await post(
        'sampled-child',
        'XSAMP1',
        `00-${sampledTraceId}-00f067aa0ba902b7-01`,
      );
      expect([root.status, child.status, sampled.status]).toEqual([201, 201, 201]);

      // The user GETs: each with the request id and a traceparent of the request's trace.
      const [rootCall, childCall, sampledCall] = ['XUNSA1', 'XUNSA2', 'XSAMP1'].map(userCallOf);
      expect(rootCall?.requestId).toBe('unsampled-root');
      const [, rootTraceId, , rootFlags] = TRACEPARENT.exec(rootCall?.traceparent ?? '') ?? [];
      expect(rootFlags).toBe('00');
      const [, childTraceId, childParent, childFlags] =
        TRACEPARENT.exec(childCall?.traceparent ?? '') ?? [];
      expect([childTraceId, childFlags]).toEqual([callerTraceId, '00']);
      expect(childParent).not.toBe('b7ad6b7169203331');
      const [, sampledTraceIdSent, sampledParent, sampledFlags] =
        TRACEPARENT.exec(sampledCall?.traceparent ?? '') ?? [];
      expect([sampledTraceIdSent, sampledFlags]).toEqual([sampledTraceId, '01']);

      // The outbox messages keep that trace; their deliveries (a minute later: none is due
      // again here) continue it, unsampled, with the request id.
      const rootMessage = await traceContextOf(db.url, root.body.requestId as string);
      expect(rootMessage).toEqual({
        traceparent: expect.stringMatching(new RegExp(`^00-${rootTraceId}-[0-9a-f]{16}-00$`)),
        'x-request-id': 'unsampled-root',
      });
      await eventually(async () => !!operationCallOf('unsampled-root'), 30_000);
      expect(operationCallOf('unsampled-root')?.traceparent).toMatch(
        new RegExp(`^00-${rootTraceId}-[0-9a-f]{16}-00$`),
      );

      // The sampled one was traced: the client span of its user GET is the parent the stub got.
      await eventually(async () =>
        spans().some((s) => s.traceId === sampledTraceId && s.spanId === sampledParent),
      );
      await eventually(async () => !!operationCallOf('sampled-child'), 30_000);
      // By then every span of the unsampled ones would have been exported: there is none.
      const traced = new Set(spans().map((s) => s.traceId));
      expect([rootTraceId, callerTraceId].filter((id) => traced.has(id))).toEqual([]);
      expect(
        spans().filter((s) =>
          ['unsampled-root', 'unsampled-child'].includes(
            (s.attributes[REQUEST_ID_ATTRIBUTE] as string[] | undefined)?.[0] ?? '',
          ),
        ),
      ).toEqual([]);
    });

    it("a sampled request's server span ends with its status code: a 5xx is an error, a 4xx is not", async () => {
      userService.reset((req, res) =>
        req.url?.includes('XDOWN1')
          ? json(res, 503, { message: 'down' })
          : json(res, 404, { message: 'not found' }),
      );
      const failedTrace = '4bf92f3577b34da6a3ce929d0e0e4738';
      const refusedTrace = '4bf92f3577b34da6a3ce929d0e0e4739';
      const failed = await post('sampled-5xx', 'XDOWN1', `00-${failedTrace}-00f067aa0ba902b7-01`);
      // A body that breaks the spec's rules: 400 in the service's error shape.
      const refused = await request(service.url)
        .post(API)
        .set('X-Request-Id', 'sampled-4xx')
        .set('traceparent', `00-${refusedTrace}-00f067aa0ba902b7-01`)
        .send({});
      expect(failed.status).toBe(503);
      expect(refused.status).toBe(400);
      const serverOf = (traceId: string) =>
        spans().find((s) => s.traceId === traceId && s.kind === SPAN_KIND.SERVER);
      await eventually(async () => !!serverOf(failedTrace) && !!serverOf(refusedTrace));
      expect(serverOf(failedTrace)).toMatchObject({
        attributes: expect.objectContaining({ 'http.response.status_code': 503 }),
        status: { code: 2 }, // ERROR
      });
      expect(serverOf(refusedTrace)?.attributes['http.response.status_code']).toBe(refused.status);
      expect(serverOf(refusedTrace)?.status.code ?? 0).toBe(0); // UNSET
      // The user service's 503 on the client span of the call that got it: an error.
      const userCall = spans().find((s) => s.traceId === failedTrace && isHttpClient(s));
      expect(userCall).toMatchObject({
        attributes: expect.objectContaining({
          'http.response.status_code': 503,
          'error.type': '503',
        }),
        status: { code: 2 }, // ERROR
      });
    });
  });
});
