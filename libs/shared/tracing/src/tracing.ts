import { EventEmitter } from 'node:events';
import { IncomingMessage } from 'node:http';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { isTracingSuppressed, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { REQUEST_ID_HEADER } from './correlation';
import { EdgeSampling, samplerFromEnv, useEdgeSampling } from './sampling';

/**
 * Probe and metrics requests (any BASE_PATH in front): scraped every few seconds, they would
 * drown the traces that matter and cost the most for the least.
 */
const UNTRACED_PATH = /\/(api\/health(\/live|\/ready|\/startup)?|metrics)\/?$/;

export function isUntracedPath(url: string | undefined): boolean {
  return UNTRACED_PATH.test((url ?? '').split('?')[0]);
}

/** Why tracing is off, or null when it is on (the standard OTEL_* variables decide). */
export function tracingOffReason(env: NodeJS.ProcessEnv): string | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return 'OTEL_SDK_DISABLED=true';
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter && exporter !== 'otlp')
    return `OTEL_TRACES_EXPORTER=${exporter} (only otlp is supported)`;
  if (!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT && !env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return 'no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';
  return null;
}

let provider: NodeTracerProvider | null = null;

/**
 * The SDK's context manager, except that it binds no event emitter. The HTTP instrumentation
 * binds each traced request and response (and client request) to its context, which gives them
 * own properties and wraps every listener added to them afterwards: with a share of requests
 * traced, requests of two shapes made Node's and Fastify's request handling polymorphic, which
 * cost more CPU than the sampled spans themselves. The listeners need no context: they end spans
 * and count metrics they hold, and the handler, which Fastify may run from the request body's
 * 'end', gets its request's context back from runWithRequestId (the preHandler hook).
 */
export class UnboundEmittersContextManager extends AsyncLocalStorageContextManager {
  override bind<T>(context: Context, target: T): T {
    return target instanceof EventEmitter ? target : super.bind(context, target);
  }
}

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured (else does nothing and
 * returns false): spans of the HTTP server and client (so axios calls carry `traceparent`),
 * Fastify (Nest's handling of the request in it) and pg, batched to the OTLP/HTTP (JSON)
 * exporter. The exporter, the sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; default
 * parentbased_always_on), the batch (OTEL_BSP_*) and the resource (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES) read the standard variables. Incoming requests are sampled before
 * any instrumentation runs for them (EdgeSampling): an unsampled one runs with tracing
 * suppressed and costs next to nothing. Must run before the modules it instruments are loaded:
 * each service's main.ts imports its tracing.ts first.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (provider || tracingOffReason(env)) return false;
  const edge = new EdgeSampling(samplerFromEnv(env));
  useEdgeSampling(edge);
  provider = new NodeTracerProvider({
    sampler: edge.sampler,
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the service's own name.
    resource: resourceFromAttributes({ 'service.name': serviceName }).merge(
      detectResources({ detectors: [envDetector] }),
    ),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register({
    propagator: new W3CTraceContextPropagator(),
    contextManager: new UnboundEmittersContextManager(),
  });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) =>
          isUntracedPath(request.url) || !edge.traces(request),
        // An unsampled request's calls: no span to make (correlationHeaders gives their traceparent).
        ignoreOutgoingRequestHook: () => isTracingSuppressed(context.active()),
        // The request id on both ends of a call: a trace is found from a log line and back.
        headersToSpanAttributes: {
          server: { requestHeaders: [REQUEST_ID_HEADER] },
          client: { requestHeaders: [REQUEST_ID_HEADER] },
        },
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // One span per request, 'request' (it also names the HTTP server span after the route
        // template): Nest's guards, pipes and controller run in it. Not one per Fastify hook nor
        // for the route handler (as much CPU as the rest of a sampled GET's spans put together
        // for no new information), nor Nest's own instrumentation (two more per request).
        instrumentHooks: false,
        instrumentHandler: false,
        // Requests left untraced by the HTTP instrumentation (above) run with tracing suppressed.
        ignorePaths: () => isTracingSuppressed(context.active()),
      }),
      // Only statements run for a traced piece of work: the schedulers' polling would otherwise
      // make a root span per statement. Statement text only, never the parameters (personal data).
      // No span per pool checkout: it parsed the connection string into a URL for every one.
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        ignoreConnectSpans: true,
      }),
    ],
  });
  return true;
}

/** Exports the spans still buffered and stops tracing (at shutdown); nothing when it is off. */
export async function stopTracing(): Promise<void> {
  const running = provider;
  provider = null;
  useEdgeSampling(null);
  await running?.shutdown();
}
