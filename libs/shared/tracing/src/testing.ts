import http from 'node:http';
import https from 'node:https';
import { context, ContextManager, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { UnboundEmittersContextManager } from './context-manager';
import {
  httpInstrumentationConfig,
  PgErrorMessageRedaction,
  pgInstrumentationConfig,
} from './instrumentations';

/** An SDK registered for a test, its finished spans kept in memory. */
export interface InMemoryTracing {
  provider: TracerProvider;
  memory: InMemorySpanExporter;
  /** Unpatches what was patched, shuts the provider down, unregisters the globals. */
  stop(): Promise<void>;
}

export interface InMemoryTracingOptions {
  /** Patch node:http and node:https as startTracing's HTTP instrumentation does. */
  http?: boolean;
  /** Patch this pg module (the test's own `require('pg')`) as startTracing's pg instrumentation does. */
  pg?: object;
  /** Leave out PgErrorMessageRedaction (to see what instrumentation-pg itself records). */
  withoutPgRedaction?: boolean;
  /** Another context manager than startTracing's (to see what the standard one does). */
  contextManager?: ContextManager;
}

/**
 * Patches `moduleExports` with the instrumentation's definition of module `name`, and returns
 * the undo. Jest loads packages through its own module registry, which the instrumentations'
 * require hook never sees: the tests apply the same patch to the module they use.
 */
/** What patch needs of an instrumentation (instrumentation-pg brings its own copy of the base class). */
interface PatchingInstrumentation {
  instrumentationName: string;
  getModuleDefinitions(): {
    name: string;
    patch?: (moduleExports: object) => unknown;
    unpatch?: (moduleExports: object) => void;
  }[];
}

function patch(instrumentation: PatchingInstrumentation, name: string, moduleExports: object) {
  const definition = instrumentation.getModuleDefinitions().find((d) => d.name === name);
  if (!definition?.patch) throw new Error(`${instrumentation.instrumentationName} has no ${name}`);
  definition.patch(moduleExports);
  return () => definition.unpatch?.(moduleExports);
}

/**
 * Registers the OpenTelemetry SDK as startTracing does (the W3C propagator, its context manager,
 * PgErrorMessageRedaction), with every span kept in memory as it ends and, as asked, the HTTP
 * and pg instrumentations configured as startTracing configures them (a test file has its own
 * globals under Jest; node:http is the process's, so stop() must run).
 */
export function registerInMemoryTracing(options: InMemoryTracingOptions = {}): InMemoryTracing {
  const memory = new InMemorySpanExporter();
  const processors: SpanProcessor[] = options.withoutPgRedaction
    ? []
    : [new PgErrorMessageRedaction()];
  const provider = new TracerProvider({
    spanProcessors: [...processors, new SimpleSpanProcessor({ exporter: memory })],
  });
  context.setGlobalContextManager(
    (options.contextManager ?? new UnboundEmittersContextManager()).enable(),
  );
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const undo: (() => void)[] = [];
  if (options.http) {
    const instrumentation = new HttpInstrumentation({
      ...httpInstrumentationConfig(),
      enabled: false,
    });
    instrumentation.setTracerProvider(provider);
    undo.push(patch(instrumentation, 'http', http), patch(instrumentation, 'https', https));
  }
  if (options.pg) {
    const instrumentation = new PgInstrumentation({ ...pgInstrumentationConfig(), enabled: false });
    instrumentation.setTracerProvider(provider);
    undo.push(patch(instrumentation, 'pg', options.pg));
  }
  return {
    provider,
    memory,
    stop: async () => {
      for (const step of undo.reverse()) step();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
