import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';

/** An SDK registered for a test, its finished spans kept in memory. */
export interface InMemoryTracing {
  provider: NodeTracerProvider;
  memory: InMemorySpanExporter;
  /** Shuts the provider down and unregisters the global tracer, context and propagator. */
  stop(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK as startTracing does (the W3C propagator, the async context
 * manager), with every span kept in memory as it ends, for tests of what the services' own code
 * makes of spans (a test file has its own globals under Jest).
 */
export function registerInMemoryTracing(): InMemoryTracing {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  provider.register({
    propagator: new W3CTraceContextPropagator(),
    contextManager: new AsyncLocalStorageContextManager(),
  });
  return {
    provider,
    memory,
    stop: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
