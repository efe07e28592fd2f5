import { EventEmitter } from 'node:events';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, Context, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  isTracingSuppressed,
  suppressTracing,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { REQUEST_ID_HEADER, REQUEST_TRACE, WithRequestTrace } from './correlation';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EdgeSampling, samplerFromEnv } from './sampling';

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

/** While tracing runs: the SDK, the sampling of incoming requests, and what makes their spans. */
let running: {
  provider: NodeTracerProvider;
  edge: EdgeSampling;
  requestSpans: FastifyOtelInstrumentation;
} | null = null;

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

/** The attribute the caller's request id is recorded in, on server and client spans. */
const REQUEST_ID_ATTRIBUTE = `http.request.header.${REQUEST_ID_HEADER}`;

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured (else does nothing and
 * returns false): HTTP client spans (so axios calls carry `traceparent`), the request's server
 * span made by Fastify's instrumentation (instrumentFastify: Nest's handling of the request runs
 * in it) and pg spans, batched to the OTLP/HTTP exporter (otlpProtocol). The exporter, the sampler
 * (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; default parentbased_always_on), the batch
 * (OTEL_BSP_*) and the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) read the standard
 * variables. Must run before the modules it instruments are loaded: each service's main.ts
 * imports its tracing.ts first.
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
      ),
    ],
  });
  provider.register({
    propagator: new W3CTraceContextPropagator(),
    contextManager: new UnboundEmittersContextManager(),
  });
  const requestSpans = new FastifyOtelInstrumentation({
    // Registered by instrumentFastify, after the hook that samples the request.
    registerOnInitialization: false,
    // One span per request, the server span, named after the route template: Nest's guards,
    // pipes and controller run in it. Not one per Fastify hook nor for the route handler (as
    // much CPU as the rest of a sampled GET's spans put together for no new information), nor
    // Nest's own instrumentation (two more per request).
    instrumentHooks: false,
    instrumentHandler: false,
    // Requests left unsampled (and probes) run with tracing suppressed: see instrumentFastify.
    ignorePaths: () => isTracingSuppressed(context.active()),
    requestHook: (span, request: FastifyRequest) => {
      const route = request.routeOptions.url;
      span.updateName(route ? `${request.method} ${route}` : request.method);
      // The request id: a trace is found from a log line and back.
      span.setAttribute(REQUEST_ID_ATTRIBUTE, [request.id]);
    },
  });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Outgoing calls only: the incoming request's server span is Fastify's (one span where
      // the HTTP server's and Fastify's were two, and no work at all for an unsampled request
      // before Fastify's first hook).
      new HttpInstrumentation({
        disableIncomingRequestInstrumentation: true,
        // An unsampled request's calls: no span to make (correlationHeaders gives their traceparent).
        ignoreOutgoingRequestHook: () => isTracingSuppressed(context.active()),
        headersToSpanAttributes: { client: { requestHeaders: [REQUEST_ID_HEADER] } },
      }),
      requestSpans,
      pgStatementSpans(),
    ],
  });
  running = { provider, edge, requestSpans };
  return true;
}

/**
 * The private method of pg's instrumentation that subscribes to a pool's events the first time a
 * traced statement checks out one of its connections (pgStatementSpans turns it off).
 */
export interface PoolListening {
  _setPoolConnectEventListeners(pool: unknown): void;
}

/**
 * pg's instrumentation as the services use it: a span per statement run for a traced piece of
 * work (the schedulers' polling would otherwise make a root span per statement), with the
 * statement's text and never its parameters (personal data); no span per pool checkout (it
 * parsed the connection string into a URL for every one); and none of its pool metrics. Those
 * would listen to every connect, acquire, release and remove of the pool from the first traced
 * checkout on, for every request whether traced or not, to update OpenTelemetry counters
 * (`db.client.connection.*`) that nothing exports here: the services register no OpenTelemetry
 * meter provider and publish their pool's figures to Prometheus themselves (`db_pool_*`,
 * libs/shared/metrics). At any ratio above 0 their calls into V8's runtime alone cost every GET
 * by id 16 k instructions, 3.5 % of the request (docs/benchmarks.md).
 */
export function pgStatementSpans(): PgInstrumentation {
  const instrumentation = new PgInstrumentation({
    requireParentSpan: true,
    enhancedDatabaseReporting: false,
    ignoreConnectSpans: true,
  });
  (instrumentation as unknown as PoolListening)._setPoolConnectEventListeners = () => undefined;
  return instrumentation;
}

/** A context with tracing suppressed, made once for the usual case (no context active yet). */
const SUPPRESSED_ROOT = suppressTracing(ROOT_CONTEXT);

/**
 * Traces the requests of `fastify` (nothing while tracing is off): each is sampled as it arrives,
 * in Fastify's first onRequest hook (EdgeSampling). A sampled one gets its server span from
 * Fastify's instrumentation (the caller's `traceparent` its parent), named after its route; an
 * unsampled one, a probe or a scrape runs with tracing suppressed, so that no instrumentation
 * makes a span, an attribute or a context for it. Either way the context is kept on the request
 * (REQUEST_TRACE) for runWithRequestId. Call on a new instance, before its routes.
 */
export function instrumentFastify(fastify: FastifyInstance): void {
  if (!running) return;
  const { edge, requestSpans } = running;
  fastify.decorateRequest(REQUEST_TRACE, null);
  fastify.addHook('onRequest', (request, _reply, done) => {
    // A probe or a scrape: never traced, and no trace to pass on.
    const untraced = isUntracedPath(request.url);
    const unsampled = untraced ? null : edge.decide(request.raw);
    const active = context.active();
    (request as WithRequestTrace)[REQUEST_TRACE] = { context: active, unsampled };
    if (!untraced && !unsampled) return done();
    context.with(active === ROOT_CONTEXT ? SUPPRESSED_ROOT : suppressTracing(active), done);
  });
  // As the instrumentation registers itself when asked to (a plugin run on the instance at once):
  // its onRequest hook starts the server span of a request not suppressed above.
  requestSpans.plugin()(fastify, {}, () => undefined);
  // The context the hooks above left the request in: the one its handler runs in.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const state = (request as WithRequestTrace)[REQUEST_TRACE];
    if (state) state.context = context.active();
    done();
  });
}

/** Exports the spans still buffered and stops tracing (at shutdown); nothing when it is off. */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = null;
  await stopping?.provider.shutdown();
}
