import { EventEmitter } from 'node:events';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import {
  Context,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import { propagation } from '@opentelemetry/api';
import { EdgeSampling, samplerFromEnv, UnsampledTrace } from './sampling';
import { UnboundEmittersContextManager } from './tracing';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT = `00-${TRACE_ID}-b7ad6b7169203331`;

function incoming(headers: Record<string, string> = {}): IncomingMessage {
  const request = new IncomingMessage(new Socket());
  request.method = 'POST';
  request.headers = headers;
  return request;
}

describe('EdgeSampling', () => {
  beforeAll(() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()));
  afterAll(() => propagation.disable());

  const edge = (env: NodeJS.ProcessEnv) => new EdgeSampling(samplerFromEnv(env));
  /** The trace a request was left unsampled in, or null when it is traced. */
  const unsampled = (decision: Context | UnsampledTrace) =>
    decision instanceof UnsampledTrace ? decision : null;
  const ratio = (arg: string) =>
    edge({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: arg });

  it('samples new traces at the configured ratio', () => {
    expect(unsampled(ratio('1').decide(incoming()))).toBeNull();
    expect(unsampled(ratio('0').decide(incoming()))).not.toBeNull();
    const half = ratio('0.5');
    const sampled = Array.from(
      { length: 400 },
      () => unsampled(half.decide(incoming())) === null,
    ).filter(Boolean);
    expect(sampled.length).toBeGreaterThan(100);
    expect(sampled.length).toBeLessThan(300);
  });

  it("follows the caller's decision under a parent-based sampler", () => {
    const sampledChild = ratio('0').decide(incoming({ traceparent: `${PARENT}-01` }));
    expect(unsampled(sampledChild)).toBeNull();
    // Traced: the caller's span is the parent of the request's server span.
    expect(trace.getSpanContext(sampledChild as Context)).toMatchObject({
      traceId: TRACE_ID,
      spanId: 'b7ad6b7169203331',
      isRemote: true,
    });
    expect(unsampled(ratio('1').decide(incoming({ traceparent: `${PARENT}-00` })))).not.toBeNull();
    // A new trace: its server span is a root.
    expect(edge({}).decide(incoming())).toBe(ROOT_CONTEXT); // parentbased_always_on
    expect(
      unsampled(edge({ OTEL_TRACES_SAMPLER: 'always_off' }).decide(incoming())),
    ).not.toBeNull();
  });

  it("keeps an unsampled request's trace: the caller's trace id, a span id of its own, flags 00", () => {
    const sampling = ratio('0');
    const child = incoming({ traceparent: `${PARENT}-00`, tracestate: 'vendor=1' });
    const trace = unsampled(sampling.decide(child));
    expect(trace?.traceparent).toMatch(
      new RegExp(`^00-${TRACE_ID}-(?!b7ad6b7169203331)[0-9a-f]{16}-00$`),
    );
    expect(trace?.traceparent).toBe(trace?.traceparent); // one per request
    expect(trace?.tracestate).toBe('vendor=1');

    const root = unsampled(sampling.decide(incoming()));
    expect(root?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(root?.traceparent).not.toContain(TRACE_ID);
    expect(root?.tracestate).toBeUndefined();
  });

  it('makes no id for an unsampled new trace until its traceparent is asked for', () => {
    const sampling = ratio('0');
    const ids = sampling['ids'];
    const traceIds = jest.spyOn(ids, 'generateTraceId');
    const spanIds = jest.spyOn(ids, 'generateSpanId');
    const root = unsampled(sampling.decide(incoming()));
    expect([traceIds.mock.calls.length, spanIds.mock.calls.length]).toEqual([0, 0]);
    expect(root?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect([traceIds.mock.calls.length, spanIds.mock.calls.length]).toEqual([1, 1]);
  });

  it('gives an unsampled new trace an id the configured sampler drops (its decision downstream)', () => {
    const sampling = ratio('0.5');
    const downstream = new TraceIdRatioBasedSampler(0.5);
    const ids = Array.from({ length: 400 }, () => unsampled(sampling.decide(incoming())))
      .filter((trace): trace is UnsampledTrace => trace !== null)
      .map((trace) => trace.traceparent.split('-')[1]);
    expect(ids.length).toBeGreaterThan(100);
    const sampledDownstream = ids.filter(
      (id) => downstream.shouldSample(ROOT_CONTEXT, id).decision !== SamplingDecision.NOT_RECORD,
    );
    expect(sampledDownstream).toEqual([]);
  });

  it('records the server span of a new trace sampled at the edge, asks the configured sampler for the rest', () => {
    const { sampler } = ratio('0');
    const decide = (kind: SpanKind, parent = ROOT_CONTEXT) =>
      sampler.shouldSample(parent, TRACE_ID, 'span', kind, {}, []).decision;
    expect(decide(SpanKind.SERVER)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(SpanKind.CONSUMER)).toBe(SamplingDecision.NOT_RECORD);
    const unsampledParent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
      isRemote: true,
    });
    expect(decide(SpanKind.SERVER, unsampledParent)).toBe(SamplingDecision.NOT_RECORD);
  });
});

describe('samplerFromEnv', () => {
  it.each([
    [{}, 'ParentBased{root=AlwaysOnSampler'],
    [{ OTEL_TRACES_SAMPLER: 'always_on' }, 'AlwaysOnSampler'],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' },
      'TraceIdRatioBased{0.25}',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
      'ParentBased{root=TraceIdRatioBased{0.1}',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
      'ParentBased{root=TraceIdRatioBased{1}',
    ],
    [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'ParentBased{root=AlwaysOnSampler'],
  ])('reads %j as the SDK does', (env, expected) => {
    expect(samplerFromEnv(env).toString()).toContain(expected);
  });

  it.each([
    [{}, 1],
    [{ OTEL_TRACES_SAMPLER: 'always_on' }, 1],
    [{ OTEL_TRACES_SAMPLER: 'always_off' }, 0],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, 0],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }, 0.25],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }, 0.1],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '-1' }, 1],
  ])('records, for %j, the share %d of new traces', (env, share) => {
    expect(samplerFromEnv(env).newTraceRatio).toBe(share);
  });
});

describe('UnboundEmittersContextManager', () => {
  it('binds functions to a context, never an event emitter', () => {
    const manager = new UnboundEmittersContextManager().enable();
    try {
      const key = createContextKey('probe');
      const traced = ROOT_CONTEXT.setValue(key, 'traced');
      const emitter = new EventEmitter();
      const response = new ServerResponse(incoming());
      const on = [emitter.on, response.on];
      manager.bind(traced, emitter);
      manager.bind(traced, response);
      expect([emitter.on, response.on]).toEqual(on);
      expect(Object.getOwnPropertyNames(emitter)).not.toContain('on');
      const bound = manager.bind(traced, () => manager.active().getValue(key));
      expect(bound()).toBe('traced');
    } finally {
      manager.disable();
    }
  });
});
