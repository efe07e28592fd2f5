import { EventEmitter } from 'node:events';
import {
  Context,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { REQUEST_ID_ATTRIBUTE, REQUEST_TRACE, RequestTrace, WithRequestTrace } from './correlation';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Client } from 'pg';
import { instrumentPg, PG_SPANS_SCOPE } from './pg-spans';
import { EdgeSampling, samplerFromEnv, UnsampledTrace } from './sampling';

/**
 * Probe and metrics requests (any BASE_PATH in front): scraped every few seconds, they would
 * drown the traces that matter and cost the most for the least.
 */
const UNTRACED_PATH = /^[^?]*\/(api\/health(\/live|\/ready|\/startup)?|metrics)\/?(\?.*)?$/;

export function isUntracedPath(url: string | undefined): boolean {
  return UNTRACED_PATH.test(url ?? '');
}

/** Why tracing is off, or null when it is on (the standard OTEL_* variables decide). */
export function tracingOffReason(env: NodeJS.ProcessEnv): string | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return 'OTEL_SDK_DISABLED=true';
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter && exporter !== 'otlp')
    return `OTEL_TRACES_EXPORTER=${exporter} (only otlp is supported)`;
  if (!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT && !env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return 'no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';
  const protocol = otlpProtocol(env);
  if (!PROTOCOLS.includes(protocol))
    return `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} (only ${PROTOCOLS.join(' and ')} are supported)`;
  return null;
}

const PROTOCOLS = ['http/protobuf', 'http/json'];

/**
 * The OTLP protocol of the trace exporter: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else
 * OTEL_EXPORTER_OTLP_PROTOCOL, else the specification's default, http/protobuf (half the bytes
 * of http/json and less than half its CPU to encode: docs/benchmarks.md).
 */
export function otlpProtocol(env: NodeJS.ProcessEnv): string {
  return (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() ||
    'http/protobuf'
  ).toLowerCase();
}

/**
 * How long a finished span waits for its batch to fill before the batch is exported, ms, unless
 * OTEL_BSP_SCHEDULE_DELAY says otherwise (the SDK's default is 5000). Spans that wait seconds for
 * a batch of 512 (a GET by id sampled at 10 % fills one in about 1.5 s) outlive the young
 * generation and leave their collection to the old one: GETs by id sampled at 10 % used 0.36 ms
 * of CPU each with 5 s, 0.32 ms with 200 ms and 0.32 ms with nothing sampled (docs/benchmarks.md).
 * A quiet service then exports at most 5 small batches a second.
 */
export const BATCH_SCHEDULE_DELAY_MS = 200;

/** The span batch delay, ms: OTEL_BSP_SCHEDULE_DELAY when it is a number of ms, else ours. */
export function batchScheduleDelayMs(env: NodeJS.ProcessEnv): number {
  const configured = env.OTEL_BSP_SCHEDULE_DELAY?.trim();
  const ms = configured ? Number(configured) : NaN;
  return Number.isFinite(ms) && ms >= 0 ? ms : BATCH_SCHEDULE_DELAY_MS;
}

/** While tracing runs: the SDK, the sampling of incoming requests, and what makes their spans. */
let running: {
  provider: NodeTracerProvider;
  edge: EdgeSampling;
  serverSpans: Tracer;
  unpatchPg: () => void;
} | null = null;

/** The instrumentation scope of the requests' server spans (instrumentFastify). */
export const SERVER_SPANS_SCOPE = '@bank/shared/tracing/fastify';

/**
 * The SDK's context manager, except that it binds no event emitter. An instrumentation that binds
 * a request, response or client request to its context gives it own properties and wraps every
 * listener added to it afterwards: with a share of requests traced, requests of two shapes made
 * Node's and Fastify's request handling polymorphic, which cost more CPU than the sampled spans
 * themselves. The listeners need no context: they end spans and count metrics they hold, and the
 * handler, which Fastify may run from the request body's 'end', gets its request's context back
 * from runWithRequestId (the preHandler hook).
 */
export class UnboundEmittersContextManager extends AsyncLocalStorageContextManager {
  override bind<T>(context: Context, target: T): T {
    return target instanceof EventEmitter ? target : super.bind(context, target);
  }
}

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured (else does nothing and
 * returns false): the requests' server spans (instrumentFastify: Nest's handling of a request
 * runs in its span), the HTTP client spans of the services' outgoing calls (startOutgoingCall:
 * the gateways' axios calls and the webhooks', which carry their `traceparent`) and the
 * statements' spans (instrumentPg, on node-postgres's Client), these two only under a span of a
 * traced piece of work, batched to the OTLP/HTTP exporter (otlpProtocol). The exporter, the
 * sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; default parentbased_always_on), the
 * batch (OTEL_BSP_*) and the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) read the
 * standard variables. Each service's main.ts imports its tracing.ts first, so that tracing runs
 * before anything is served or queried.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (running || tracingOffReason(env)) return false;
  const edge = new EdgeSampling(samplerFromEnv(env));
  const provider = new NodeTracerProvider({
    sampler: edge.sampler,
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the service's own name.
    resource: resourceFromAttributes({ 'service.name': serviceName }).merge(
      detectResources({ detectors: [envDetector] }),
    ),
    spanProcessors: [
      new BatchSpanProcessor(
        otlpProtocol(env) === 'http/json' ? new OTLPJsonTraceExporter() : new OTLPTraceExporter(),
        { scheduledDelayMillis: batchScheduleDelayMs(env) },
      ),
    ],
  });
  provider.register({
    propagator: new W3CTraceContextPropagator(),
    contextManager: new UnboundEmittersContextManager(),
  });
  const unpatchPg = instrumentPg(provider.getTracer(PG_SPANS_SCOPE), Client);
  running = { provider, edge, serverSpans: provider.getTracer(SERVER_SPANS_SCOPE), unpatchPg };
  return true;
}

/** What an untraced request (a probe, a scrape) or an unsampled one keeps: no span, no context. */
function untracedRequest(unsampled: UnsampledTrace | null): RequestTrace {
  return { context: ROOT_CONTEXT, unsampled, span: null };
}

/**
 * The server span of a sampled request, a child of the caller's span if any (`parent`), named
 * after its route template, with the semantic conventions' HTTP attributes and the request id.
 */
function startServerSpan(tracer: Tracer, request: FastifyRequest, parent: Context): RequestTrace {
  const route = request.routeOptions.url;
  const query = request.url.indexOf('?');
  const span = tracer.startSpan(
    route ? `${request.method} ${route}` : request.method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        // The path only: a query string may carry what the trace must not.
        'url.path': query < 0 ? request.url : request.url.slice(0, query),
        ...(route ? { 'http.route': route } : {}),
        // The request id: a trace is found from a log line and back.
        [REQUEST_ID_ATTRIBUTE]: [request.id],
      },
    },
    parent,
  );
  return { context: trace.setSpan(parent, span), unsampled: null, span };
}

/** Ends a request's server span with its response's status (5xx an error). */
function endServerSpan(span: Span, statusCode: number): void {
  span.setAttribute('http.response.status_code', statusCode);
  if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * Traces the requests of `fastify` (nothing while tracing is off): each is sampled as it arrives,
 * in Fastify's first onRequest hook (EdgeSampling). A sampled one gets a server span (the caller's
 * `traceparent` its parent), named after its route and ended when its response is sent (no
 * exception is recorded on it: an error's message may quote the request's personal data, e.g. a
 * JSON parse error; its status code is); its handler runs in that span's context
 * (runWithRequestId), under which pg and the HTTP client make their spans. An unsampled one, a
 * probe or a scrape gets no span and runs under no span, so no instrumentation makes a span, an
 * attribute or a context for it: the request's hooks here test a property and return. Either way
 * what was decided is kept on the request (REQUEST_TRACE, one shape for every request) for
 * runWithRequestId. Call on a new instance, before its routes.
 */
export function instrumentFastify(fastify: FastifyInstance): void {
  if (!running) return;
  const { edge, serverSpans } = running;
  fastify.decorateRequest(REQUEST_TRACE, null);
  fastify.addHook('onRequest', (request, _reply, done) => {
    // A probe or a scrape: never traced, and no trace to pass on.
    const decision = isUntracedPath(request.url) ? null : edge.decide(request.raw);
    (request as WithRequestTrace)[REQUEST_TRACE] =
      decision === null || decision instanceof UnsampledTrace
        ? untracedRequest(decision)
        : startServerSpan(serverSpans, request, decision);
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = (request as WithRequestTrace)[REQUEST_TRACE]?.span;
    if (span) endServerSpan(span, reply.statusCode);
    done();
  });
}

/** Exports the spans still buffered and stops tracing (at shutdown); nothing when it is off. */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = null;
  stopping?.unpatchPg();
  await stopping?.provider.shutdown();
}
