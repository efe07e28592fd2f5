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
 * The sampler the standard variables describe (samplerFromEnv), and the share of new traces (a
 * request without a valid `traceparent`) its root sampler records: the edge samples those without
 * making a trace id for each (EdgeSampling.decide).
 */
export class ConfiguredSampler implements Sampler {
  constructor(
    private readonly sampler: Sampler,
    /** 1 for always_on, 0 for always_off, the ratio for traceidratio (parent-based or not). */
    readonly newTraceRatio: number,
  ) {}

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    return this.sampler.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return this.sampler.toString();
  }
}

/**
 * The sampler the standard variables describe, with the SDK's own rules: OTEL_TRACES_SAMPLER
 * always_on, always_off, traceidratio or parentbased_* of those (default parentbased_always_on),
 * OTEL_TRACES_SAMPLER_ARG the ratio (default, and when out of [0, 1]: 1).
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): ConfiguredSampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = () => {
    if (env.OTEL_TRACES_SAMPLER_ARG?.trim() && arg >= 0 && arg <= 1) return arg;
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${env.OTEL_TRACES_SAMPLER_ARG} is not a ratio, using 1`);
    return 1;
  };
  const parentBased = (root: Sampler, newTraceRatio: number) =>
    new ConfiguredSampler(new ParentBasedSampler({ root }), newTraceRatio);
  switch (name) {
    case 'always_on':
      return new ConfiguredSampler(new AlwaysOnSampler(), 1);
    case 'always_off':
      return new ConfiguredSampler(new AlwaysOffSampler(), 0);
    case 'traceidratio': {
      const r = ratio();
      return new ConfiguredSampler(new TraceIdRatioBasedSampler(r), r);
    }
    case 'parentbased_always_off':
      return parentBased(new AlwaysOffSampler(), 0);
    case 'parentbased_traceidratio': {
      const r = ratio();
      return parentBased(new TraceIdRatioBasedSampler(r), r);
    }
    default:
      if (name !== 'parentbased_always_on')
        diag.error(`OTEL_TRACES_SAMPLER=${name} is not supported, using parentbased_always_on`);
      return parentBased(new AlwaysOnSampler(), 1);
  }
}

/**
 * The trace an incoming request belongs to when it was left unsampled: what its downstream calls
 * and outbox messages carry as `traceparent` (sampled flag off), so the services after it keep
 * the trace id and the sampling decision. The ids are made when first asked for: most requests
 * (a GET by id) make no downstream call and write no outbox message.
 */
export class UnsampledTrace {
  private traceparentValue: string | null = null;

  constructor(
    private readonly ids: RandomIdGenerator,
    /** The caller's trace id, or null for a new trace (`newTraceId` makes its id). */
    private readonly traceId: string | null,
    readonly tracestate: string | undefined,
    private readonly newTraceId: () => string,
  ) {}

  get traceparent(): string {
    this.traceparentValue ??= `00-${this.traceId ?? this.newTraceId()}-${this.ids.generateSpanId()}-00`;
    return this.traceparentValue;
  }
}

/**
 * Head sampling of incoming HTTP requests, decided before any span is made for them. A request
 * the sampler drops gets no span and runs under none: no instrumentation makes a span, attribute
 * or context for it (a dropped request cost as much CPU as the request itself when every
 * instrumentation made its non-recording spans; docs/benchmarks.md). A request with the caller's
 * trace context is decided by the configured sampler on it; a new trace is recorded at the
 * configured share of new traces, and one left unsampled gets, when first asked, a trace id the
 * configured sampler drops (a sampler deciding on the trace id downstream agrees). The provider's
 * sampler (`sampler`) then takes the server spans of new traces that reach it as decided.
 */
export class EdgeSampling {
  private readonly ids = new RandomIdGenerator();
  readonly sampler: Sampler;

  constructor(private readonly configured: ConfiguredSampler) {
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
    if (!parentSpan || !isSpanContextValid(parentSpan))
      return Math.random() < this.configured.newTraceRatio
        ? parent
        : new UnsampledTrace(this.ids, null, undefined, this.droppedTraceId);
    const { decision } = this.configured.shouldSample(
      parent,
      parentSpan.traceId,
      request.method ?? 'GET',
      SpanKind.SERVER,
      {},
      [],
    );
    if (decision !== SamplingDecision.NOT_RECORD) return parent;
    const tracestate = headers.tracestate;
    return new UnsampledTrace(
      this.ids,
      parentSpan.traceId,
      typeof tracestate === 'string' ? tracestate : undefined,
      this.droppedTraceId,
    );
  }

  /**
   * A new trace id the configured sampler drops (a ratio sampler's decision is a function of the
   * trace id): drawn again while it would be sampled, at most DRAWS times (a ratio near 1 leaves
   * few such ids; the last one drawn is kept then).
   */
  private readonly droppedTraceId = (): string => {
    let traceId = this.ids.generateTraceId();
    for (let draw = 1; draw < DRAWS && this.samples(traceId); draw++)
      traceId = this.ids.generateTraceId();
    return traceId;
  };

  private samples(traceId: string): boolean {
    return (
      this.configured.shouldSample(ROOT_CONTEXT, traceId, 'new trace', SpanKind.SERVER, {}, [])
        .decision !== SamplingDecision.NOT_RECORD
    );
  }
}

/** How many trace ids droppedTraceId draws at most. */
const DRAWS = 64;

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
