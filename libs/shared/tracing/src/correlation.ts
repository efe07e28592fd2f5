import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

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

/** The id of the request whose work runs in an async scope. */
const requestIds = new AsyncLocalStorage<string | undefined>();

/** Runs `work` (and everything it starts) as part of the request with this id. */
export function runWithRequestId<T>(requestId: string | undefined, work: () => T): T {
  return requestId ? requestIds.run(requestId, work) : requestIds.exit(work);
}

/**
 * The trace context and request id of the current scope, as headers. The trace context is the
 * active span's, sampled or not (an unsampled request's trace goes on with flags 00); there is
 * none without a registered SDK or outside any span.
 */
export function correlationHeaders(): CorrelationHeaders {
  const headers: CorrelationHeaders = {};
  propagation.inject(context.active(), headers);
  const requestId = requestIds.getStore();
  if (requestId) headers[REQUEST_ID_HEADER] = requestId;
  return headers;
}

/**
 * Runs `work` outside any request: no active span, no request id. For background work a
 * request merely wakes up (the outbox round shared by every caller), which must not be
 * counted as part of that one request.
 */
export function runDetached<T>(work: () => T): T {
  return context.with(ROOT_CONTEXT, () => requestIds.exit(work));
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
