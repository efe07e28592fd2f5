import { context, propagation, trace } from '@opentelemetry/api';
import { getRPCMetadata, RPCType, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Instrumentation, registerInstrumentations } from '@opentelemetry/instrumentation';
import {
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { FastifyInstance } from 'fastify';
import { UnboundEmittersContextManager } from './context-manager';
import { REQUEST_ID_ATTRIBUTE } from './correlation';
import { createInstrumentations, PgErrorMessageRedaction } from './instrumentations';
import { samplerFromEnv } from './sampling';

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
 * of http/json and less than half its CPU to encode: docs/decisions/0031-tracing-otlp-protobuf.md).
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
 * OTEL_BSP_SCHEDULE_DELAY says otherwise (the specification's default is 5000). Spans that wait
 * seconds for a batch of 512 outlive V8's young generation and leave their collection to the old
 * one (docs/decisions/0032-tracing-span-batches.md). A quiet service then exports at most 5 small
 * batches a second.
 */
export const BATCH_SCHEDULE_DELAY_MS = 200;

/** A non-negative number of the variable `name`, else undefined (the SDK's default). */
function nonNegative(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const configured = env[name]?.trim();
  const value = configured ? Number(configured) : NaN;
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The span batch delay, ms: OTEL_BSP_SCHEDULE_DELAY when it is a number of ms, else ours. */
export function batchScheduleDelayMs(env: NodeJS.ProcessEnv): number {
  return nonNegative(env, 'OTEL_BSP_SCHEDULE_DELAY') ?? BATCH_SCHEDULE_DELAY_MS;
}

/** While tracing runs: the SDK and the instrumentations it registered. */
let running: { provider: TracerProvider; instrumentations: Instrumentation[] } | null = null;

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured (else does nothing and
 * returns false): the SDK (W3C propagation, the async context manager that binds no event
 * emitter: context-manager.ts) and the standard instrumentations of node:http (a server span
 * per request, a client span per outgoing call, which carries its `traceparent`) and of
 * node-postgres (a span per statement of a traced piece of work), configured in
 * instrumentations.ts, batched to the OTLP/HTTP exporter (otlpProtocol).
 * The exporter, the sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; default
 * parentbased_always_on), the batch (OTEL_BSP_*) and the resource (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES) read the standard variables. Must run before node:http and pg are
 * loaded: each service's main.ts imports its tracing.ts first.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (running || tracingOffReason(env)) return false;
  const provider = new TracerProvider({
    sampler: samplerFromEnv(env),
    // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win over the service's own name.
    resource: resourceFromAttributes({ 'service.name': serviceName }).merge(
      detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }),
    ),
    spanProcessors: [
      new PgErrorMessageRedaction(),
      new BatchSpanProcessor({
        exporter:
          otlpProtocol(env) === 'http/json' ? new OTLPJsonTraceExporter() : new OTLPTraceExporter(),
        scheduledDelayMillis: batchScheduleDelayMs(env),
        maxExportBatchSize: nonNegative(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
        maxQueueSize: nonNegative(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
        exportTimeoutMillis: nonNegative(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
      }),
    ],
  });
  context.setGlobalContextManager(new UnboundEmittersContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const instrumentations = createInstrumentations();
  registerInstrumentations({ tracerProvider: provider, instrumentations });
  running = { provider, instrumentations };
  return true;
}

/**
 * Names each request's server span after its route template (`POST /api/v1/card-issue`, with
 * `http.route`) and records the request id Fastify took or generated on it: the HTTP
 * instrumentation reads the route from the request's RPC metadata, where the framework puts it
 * (as the standard Fastify and Express instrumentations do). Nothing for a request without a
 * server span (a probe, a scrape). Call on a new instance, before its routes.
 */
export function nameServerSpans(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const rpc = getRPCMetadata(context.active());
    if (rpc?.type === RPCType.HTTP) {
      rpc.route = request.routeOptions.url;
      if (rpc.span.isRecording()) rpc.span.setAttribute(REQUEST_ID_ATTRIBUTE, [request.id]);
    }
    done();
  });
}

/** nameServerSpans while tracing runs; nothing (not even a hook) while it is off. */
export function instrumentFastify(fastify: FastifyInstance): void {
  if (running) nameServerSpans(fastify);
}

/** Exports the spans still buffered and stops tracing (at shutdown); nothing when it is off. */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = null;
  if (!stopping) return;
  for (const instrumentation of stopping.instrumentations) instrumentation.disable();
  await stopping.provider.shutdown();
}
