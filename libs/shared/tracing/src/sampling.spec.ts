import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { samplerFromEnv } from './sampling';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

describe('samplerFromEnv', () => {
  it.each([
    [{}, 'ParentBased{root=AlwaysOnSampler'],
    [{ OTEL_TRACES_SAMPLER: 'always_on' }, 'AlwaysOnSampler'],
    [{ OTEL_TRACES_SAMPLER: 'always_off' }, 'AlwaysOffSampler'],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, 'ParentBased{root=AlwaysOffSampler'],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' },
      'TraceIdRatioBased{0.25}',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'PARENTBASED_TRACEIDRATIO', OTEL_TRACES_SAMPLER_ARG: '0.1' },
      'ParentBased{root=TraceIdRatioBased{0.1}',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
      'ParentBased{root=TraceIdRatioBased{1}',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '' },
      'ParentBased{root=TraceIdRatioBased{1}',
    ],
    [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'ParentBased{root=AlwaysOnSampler'],
  ])('reads %j as the specification does', (env, expected) => {
    expect(samplerFromEnv(env).toString()).toContain(expected);
  });

  it("parentbased_traceidratio 0 keeps a caller's sampled trace and drops new ones", () => {
    const sampler = samplerFromEnv({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    const caller = (flags: TraceFlags) =>
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: TRACE_ID,
        spanId: 'b7ad6b7169203331',
        traceFlags: flags,
        isRemote: true,
      });
    const decide = (parent = ROOT_CONTEXT) =>
      sampler.shouldSample(parent, TRACE_ID, 'span', SpanKind.SERVER, {}, []).decision;
    expect(decide()).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(caller(TraceFlags.SAMPLED))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(caller(TraceFlags.NONE))).toBe(SamplingDecision.NOT_RECORD);
  });
});
