import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { CLIENT_SPANS_SCOPE, startOutgoingCall } from './client-spans';
import { runWithRequestId } from './correlation';
import { InMemoryTracing, registerInMemoryTracing } from './testing';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN_ID = 'b7ad6b7169203331';

/** A caller's span context, as an incoming traceparent leaves it: sampled or not. */
const callerContext = (flags: TraceFlags) =>
  trace.setSpan(
    ROOT_CONTEXT,
    trace.wrapSpanContext({ traceId: TRACE_ID, spanId: PARENT_SPAN_ID, traceFlags: flags }),
  );

/**
 * The HTTP client spans of the services' outgoing calls, as the SDK records them (registered as
 * main.ts does: the W3C propagator, the async context manager; spans kept in memory).
 */
describe('startOutgoingCall', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = registerInMemoryTracing();
  });

  afterEach(() => tracing.memory.reset());

  afterAll(() => tracing.stop());

  const finished = () => tracing.memory.getFinishedSpans();

  /** A span of the sampled piece of work the call is made in (it is the recording parent). */
  const inRecordingSpan = <T>(work: () => T): T => {
    const parent = tracing.provider.getTracer('test').startSpan('work', {}, callerContext(1));
    try {
      return context.with(trace.setSpan(ROOT_CONTEXT, parent), work);
    } finally {
      parent.end();
    }
  };
  const clientSpans = () => finished().filter((s) => s.kind === SpanKind.CLIENT);

  it('under no span (an unsampled request): no span, not even a parse; the scope’s headers', () => {
    const call = runWithRequestId('r-untraced', () => startOutgoingCall('GET', 'not a url'));
    expect(call.traced).toBe(false);
    expect(call.headers).toEqual({ 'x-request-id': 'r-untraced' });
    call.end(503);
    expect(finished()).toEqual([]);
  });

  it("under a non-recording span (a caller's unsampled trace): no span, that trace passed on", () => {
    const call = context.with(callerContext(TraceFlags.NONE), () =>
      startOutgoingCall('GET', 'http://users:8080/api/v1/users/X1'),
    );
    expect(call.traced).toBe(false);
    expect(call.headers.traceparent).toBe(`00-${TRACE_ID}-${PARENT_SPAN_ID}-00`);
    call.end(200);
    expect(finished()).toEqual([]);
  });

  it('under a recording span: a client span, its child, whose traceparent the call sends', () => {
    const call = runWithRequestId('r-traced', () =>
      inRecordingSpan(() =>
        startOutgoingCall('GET', 'http://users.bank.svc:8080/user-api/api/v1/users/X1?pin=1234'),
      ),
    );
    expect(call.traced).toBe(true);
    call.end(200);
    const [span] = clientSpans();
    const work = finished().find((s) => s.name === 'work');
    expect(span).toMatchObject({
      name: 'GET',
      instrumentationScope: { name: CLIENT_SPANS_SCOPE },
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        'http.request.method': 'GET',
        'server.address': 'users.bank.svc',
        'server.port': 8080,
        // Never the query: it may carry what a trace must not.
        'url.full': 'http://users.bank.svc:8080/user-api/api/v1/users/X1',
        'http.request.header.x-request-id': ['r-traced'],
        'http.response.status_code': 200,
      },
    });
    expect(span.parentSpanContext?.spanId).toBe(work?.spanContext().spanId);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(call.headers).toEqual({
      traceparent: `00-${TRACE_ID}-${span.spanContext().spanId}-01`,
      'x-request-id': 'r-traced',
    });
  });

  it("defaults the port to the scheme's", () => {
    inRecordingSpan(() => {
      startOutgoingCall('POST', new URL('https://hooks.example.com/in')).end(204);
      startOutgoingCall('POST', 'http://hooks.example.com/in').end(204);
    });
    expect(clientSpans().map((s) => s.attributes['server.port'])).toEqual([443, 80]);
    expect(clientSpans().map((s) => s.attributes['url.full'])).toEqual([
      'https://hooks.example.com/in',
      'http://hooks.example.com/in',
    ]);
  });

  it('is an error from 400 on, or without an answer (error.type: the status or the reason)', () => {
    inRecordingSpan(() => {
      startOutgoingCall('GET', 'http://users/a').end(399);
      startOutgoingCall('GET', 'http://users/b').end(400);
      startOutgoingCall('GET', 'http://users/c').end(503);
      startOutgoingCall('GET', 'http://users/d').end(null, 'ECONNREFUSED');
      startOutgoingCall('GET', 'http://users/e').end(null);
    });
    expect(
      clientSpans().map((s) => [
        s.status.code,
        s.attributes['http.response.status_code'],
        s.attributes['error.type'],
      ]),
    ).toEqual([
      [SpanStatusCode.UNSET, 399, undefined],
      [SpanStatusCode.ERROR, 400, '400'],
      [SpanStatusCode.ERROR, 503, '503'],
      [SpanStatusCode.ERROR, undefined, 'ECONNREFUSED'],
      [SpanStatusCode.ERROR, undefined, '_OTHER'],
    ]);
  });
});
