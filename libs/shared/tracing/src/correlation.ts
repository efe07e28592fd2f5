import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Attributes,
  Context,
  context,
  propagation,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { UnsampledTrace } from './sampling';

/** The header a caller's request id arrives in, and goes on to every downstream call in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The attribute the request id is recorded in, on server and client spans. */
export const REQUEST_ID_ATTRIBUTE = `http.request.header.${REQUEST_ID_HEADER}`;

/**
 * What ties a piece of work to the request that caused it: the W3C trace context of the span
 * it runs in (present only while tracing runs) and the request id (always). The keys are the
 * header names, so the object is what a downstream call sends and what the outbox stores.
 */
export interface CorrelationHeaders {
  traceparent?: string;
  tracestate?: string;
  [REQUEST_ID_HEADER]?: string;
}

/** The incoming request whose work runs in an async scope. */
interface RequestScope {
  requestId?: string;
  /** Its trace, when tracing runs and the request was left unsampled (it runs under no span). */
  unsampled?: UnsampledTrace;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/**
 * What tracing keeps of an incoming request while it is handled, on a property every request of
 * an instrumented Fastify instance has from its construction (instrumentFastify), so that
 * requests keep one shape whether they are sampled or not.
 */
export interface RequestTrace {
  /** The trace context its handler runs in: its server span's, or the root context. */
  context: Context;
  /** Its trace, when it was left unsampled. */
  unsampled: UnsampledTrace | null;
  /** Its server span, when it was sampled (ended when its response is sent). */
  span: Span | null;
}

/** The Fastify request property holding its RequestTrace (null until its first hook). */
export const REQUEST_TRACE = Symbol('bank.requestTrace');

/** A request that may carry its RequestTrace (every request of an instrumented instance does). */
export interface WithRequestTrace {
  [REQUEST_TRACE]?: RequestTrace | null;
}

/**
 * Runs `work` (and everything it starts) as part of the request with this id; given the
 * incoming (Fastify) `request`, also in the trace context it arrived in (the handler may run
 * from a stream event of its body, whose emitter is bound to no context) and under the trace it
 * was left unsampled in, if so.
 */
export function runWithRequestId<T>(
  requestId: string | undefined,
  work: () => T,
  request?: object,
): T {
  const state = request && (request as WithRequestTrace)[REQUEST_TRACE];
  const unsampled = state?.unsampled ?? undefined;
  const inScope = () =>
    requestId || unsampled ? scopes.run({ requestId, unsampled }, work) : scopes.exit(work);
  return state && state.context !== context.active()
    ? context.with(state.context, inScope)
    : inScope();
}

/** The id of the request this code runs for, if any. */
export function currentRequestId(): string | undefined {
  return scopes.getStore()?.requestId;
}

/** The trace context and request id of the current scope, as headers. */
export function correlationHeaders(): CorrelationHeaders {
  const headers: CorrelationHeaders = {};
  // Without a registered SDK the API's propagator is a no-op and adds nothing; it adds nothing
  // either where no span is active (an unsampled request): its trace goes on unsampled.
  propagation.inject(context.active(), headers);
  const scope = scopes.getStore();
  if (!headers.traceparent && scope?.unsampled) {
    headers.traceparent = scope.unsampled.traceparent;
    if (scope.unsampled.tracestate) headers.tracestate = scope.unsampled.tracestate;
  }
  if (scope?.requestId) headers[REQUEST_ID_HEADER] = scope.requestId;
  return headers;
}

/**
 * Runs `work` outside any request: no active span, no request id. For background work a
 * request merely wakes up (the outbox round shared by every caller), which must not be
 * counted as part of that one request.
 */
export function runDetached<T>(work: () => T): T {
  return context.with(ROOT_CONTEXT, () => scopes.exit(work));
}

const tracer = () => trace.getTracer('@bank/shared/tracing');

/**
 * Runs `work` in a new span that continues the trace recorded in `headers` (a child of the
 * span that was active when they were taken; a root span when they hold no trace context) and
 * under the request id they carry. For work that happens later than the request that caused
 * it, e.g. an outbox delivery minutes after the POST. The span fails when `work` throws or
 * calls failCurrentSpan.
 */
export async function continueTrace<T>(
  headers: CorrelationHeaders | null,
  spanName: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, headers ?? {});
  return tracer().startActiveSpan(
    spanName,
    { kind: SpanKind.CONSUMER, attributes },
    parent,
    async (span) => {
      try {
        return await runWithRequestId(headers?.[REQUEST_ID_HEADER], work);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks the active span as failed, with a reason safe to export (no personal data). */
export function failCurrentSpan(reason: string): void {
  trace.getActiveSpan()?.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}
