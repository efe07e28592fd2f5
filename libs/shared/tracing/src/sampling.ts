import { IncomingMessage } from 'node:http';
import {
  Attributes,
  Context,
  diag,
  isSpanContextValid,
  Link,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
} from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  RandomIdGenerator,
  Sampler,
  SamplingDecision,
  SamplingResult,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-node';

/**
 * The sampler the standard variables describe, with the SDK's own rules: OTEL_TRACES_SAMPLER
 * always_on, always_off, traceidratio or parentbased_* of those (default parentbased_always_on),
 * OTEL_TRACES_SAMPLER_ARG the ratio (default, and when out of [0, 1]: 1).
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = () => {
    if (env.OTEL_TRACES_SAMPLER_ARG?.trim() && arg >= 0 && arg <= 1) return arg;
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${env.OTEL_TRACES_SAMPLER_ARG} is not a ratio, using 1`);
    return 1;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      if (name !== 'parentbased_always_on')
        diag.error(`OTEL_TRACES_SAMPLER=${name} is not supported, using parentbased_always_on`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * The trace an incoming request belongs to when it was left unsampled: what its downstream calls
 * and outbox messages carry as `traceparent` (sampled flag off), so the services after it keep
 * the trace id and the sampling decision. The span id is made when first asked for.
 */
export class UnsampledTrace {
  private traceparentValue: string | null = null;

  constructor(
    private readonly ids: RandomIdGenerator,
    /** The caller's trace id, or the new trace's the decision was made on. */
    private readonly traceId: string,
    readonly tracestate: string | undefined,
  ) {}

  get traceparent(): string {
    this.traceparentValue ??= `00-${this.traceId}-${this.ids.generateSpanId()}-00`;
    return this.traceparentValue;
  }
}

/**
 * Head sampling of incoming HTTP requests, decided before any span is made for them. A request
 * the sampler drops gets no span and runs under none: no instrumentation makes a span, attribute
 * or context for it (a dropped request cost as much CPU as the request itself when every
 * instrumentation made its non-recording spans; docs/benchmarks.md). The decision is the
 * configured sampler's, on the caller's trace context or, for a new trace, on a fresh trace id;
 * the provider's sampler (`sampler`) then takes the server spans of new traces that reach it as
 * decided.
 */
export class EdgeSampling {
  private readonly ids = new RandomIdGenerator();
  readonly sampler: Sampler;

  constructor(private readonly configured: Sampler) {
    this.sampler = new EdgeDecidedServerRoots(configured);
  }

  /**
   * When `request` is traced, the context its server span is to be a child of (the caller's
   * trace context, or the root context for a new trace); else the trace it was left unsampled in.
   */
  decide(request: IncomingMessage): Context | UnsampledTrace {
    const headers = request.headers;
    // Without a traceparent there is nothing to extract (the propagator is W3C's): a new trace.
    const parent =
      headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, headers);
    const parentSpan = parent === ROOT_CONTEXT ? undefined : trace.getSpanContext(parent);
    const callerTraceId =
      parentSpan && isSpanContextValid(parentSpan) ? parentSpan.traceId : undefined;
    const traceId = callerTraceId ?? this.ids.generateTraceId();
    const { decision } = this.configured.shouldSample(
      parent,
      traceId,
      request.method ?? 'GET',
      SpanKind.SERVER,
      {},
      [],
    );
    if (decision !== SamplingDecision.NOT_RECORD) return parent;
    const tracestate = headers.tracestate;
    return new UnsampledTrace(
      this.ids,
      traceId,
      callerTraceId && typeof tracestate === 'string' ? tracestate : undefined,
    );
  }
}

/**
 * The provider's sampler: the server span of a new trace is recorded (EdgeSampling sampled its
 * request already; asking again on the SDK's new trace id would sample ratio² of them), every
 * other span as the configured sampler says.
 */
class EdgeDecidedServerRoots implements Sampler {
  constructor(private readonly configured: Sampler) {}

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const parent = trace.getSpanContext(context);
    if (spanKind === SpanKind.SERVER && !(parent && isSpanContextValid(parent)))
      return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    return this.configured.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `EdgeDecidedServerRoots{${this.configured.toString()}}`;
  }
}
