import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  ReadableSpan,
  SimpleSpanProcessor,
  SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { OtlpReceiver, ReceivedSpan, SPAN_KIND, startOtlpReceiver } from './otlp-receiver';

/** One of each attribute type the services export: int, string array, double, bool, negative int. */
const SERVER_ATTRIBUTES = {
  'http.response.status_code': 404,
  'http.request.header.x-request-id': ['r-1'],
  'bank.ratio': 0.25,
  'bank.flag': true,
  'bank.negative': -7,
};

/**
 * The test collector reads what the SDK's own exporters send, in both OTLP/HTTP encodings: the
 * same spans exported as protobuf (the services' default) and as JSON are received alike.
 */
describe('startOtlpReceiver', () => {
  let receiver: OtlpReceiver;
  let finished: ReadableSpan[];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'receiver-spec' }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    const tracer = provider.getTracer('receiver-spec-scope');
    const parent = tracer.startSpan('GET /api/v1/card-issue/:id', {
      kind: SpanKind.SERVER,
      attributes: SERVER_ATTRIBUTES,
    });
    const child = tracer.startSpan(
      'pg.query:SELECT bank',
      { kind: SpanKind.CLIENT, attributes: { 'db.query.text': 'SELECT 1 -- ü' } },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'connection lost' });
    child.end();
    parent.end();
    finished = memory.getFinishedSpans();
    await provider.shutdown();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  async function received(exporter: SpanExporter): Promise<ReceivedSpan[]> {
    const before = receiver.spans.length;
    const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
      exporter.export(finished, resolve),
    );
    await exporter.shutdown();
    expect(result).toEqual({ code: 0 });
    return receiver.spans.slice(before);
  }

  it('reads the protobuf encoding as the JSON one, field by field', async () => {
    const url = `${receiver.url}/v1/traces`;
    const protobuf = await received(new OTLPProtobufTraceExporter({ url }));
    const json = await received(new OTLPJsonTraceExporter({ url }));
    expect(receiver.protocols().sort()).toEqual(['http/json', 'http/protobuf']);
    expect(protobuf).toEqual(json);

    const [child, parent] = protobuf;
    expect(parent).toEqual({
      service: 'receiver-spec',
      scope: 'receiver-spec-scope',
      traceId: finished[1].spanContext().traceId,
      spanId: finished[1].spanContext().spanId,
      parentSpanId: '',
      name: 'GET /api/v1/card-issue/:id',
      kind: SPAN_KIND.SERVER,
      attributes: SERVER_ATTRIBUTES,
      status: { code: 0 },
    });
    expect(child).toMatchObject({
      parentSpanId: parent.spanId,
      traceId: parent.traceId,
      kind: SPAN_KIND.CLIENT,
      attributes: { 'db.query.text': 'SELECT 1 -- ü' },
      status: { code: 2, message: 'connection lost' },
    });
  });

  it('answers 415 to a body in neither encoding', async () => {
    const res = await fetch(`${receiver.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'spans',
    });
    expect(res.status).toBe(415);
  });
});
