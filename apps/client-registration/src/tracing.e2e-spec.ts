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
import { spawnClientRegistration } from '../test/client-registration.harness';
import { registration } from '../test/client-request.fixture';

/**
 * The registration service's main.ts starts tracing before its modules load as well: a POST is
 * one trace of the HTTP instrumentation's server span (Nest runs in it) and pg spans, under the
 * caller's request id.
 */
describe('traces of client-registration over OTLP (e2e, service as a process)', () => {
  let db: TestDatabase;
  let receiver: OtlpReceiver;
  let service: TestServiceProcess;

  beforeAll(async () => {
    db = await createTestDatabase('registration_tracing');
    receiver = await startOtlpReceiver();
    service = await spawnClientRegistration({
      DATABASE_URL: db.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // No OTEL_BSP_SCHEDULE_DELAY: the services' own default (200 ms) is under test below.
      // The JSON encoding here; card-issue's tracing test covers the default, protobuf.
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
  });

  afterAll(async () => {
    await service?.stop('SIGTERM');
    await receiver?.close();
    await db?.drop();
  });

  it('a POST /api/clients: the server span -> pg', async () => {
    const res = await request(service.url)
      .post('/api/clients')
      .set('X-Request-Id', 'trace-registration-1')
      .send(registration());
    expect(res.status).toBe(201);
    const isServer = (s: ReceivedSpan) =>
      s.kind === SPAN_KIND.SERVER &&
      (s.attributes['http.request.header.x-request-id'] as string[] | undefined)?.[0] ===
        'trace-registration-1';
    const inTrace = () => {
      const server = receiver.spans.find(isServer);
      return server ? receiver.spans.filter((s) => s.traceId === server.traceId) : [];
    };
    // Exported within 2.5 s (BATCH_SCHEDULE_DELAY_MS; the SDK's own default waits 5 s).
    await eventually(async () => inTrace().some((s) => s.scope === PG_SPANS_SCOPE), 2_500);
    expect(receiver.protocols()).toEqual(['http/json']);
    const trace = inTrace();
    const server = trace.find(isServer);
    // The HTTP instrumentation's server span, named after the route (Nest runs in it): one span
    // per request, none per Fastify hook or Nest handler.
    expect(server).toMatchObject({
      service: 'client-registration',
      scope: HTTP_SPANS_SCOPE,
      name: 'POST /api/clients',
      parentSpanId: '',
    });
    expect(trace.filter((s) => s.scope === HTTP_SPANS_SCOPE)).toEqual([server]);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const reachesServer = (s: ReceivedSpan): boolean =>
      s.parentSpanId === server?.spanId ||
      (byId.has(s.parentSpanId) && reachesServer(byId.get(s.parentSpanId) as ReceivedSpan));
    const statements = trace.filter((s) => s.scope === PG_SPANS_SCOPE);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every(reachesServer)).toBe(true);
  });
});
