import { Attributes, context, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  correlationHeaders,
  CorrelationHeaders,
  currentRequestId,
  REQUEST_ID_ATTRIBUTE,
} from './correlation';

/** The instrumentation scope of the services' HTTP client spans (startOutgoingCall). */
export const CLIENT_SPANS_SCOPE = '@bank/shared/tracing/http-client';

/** An outgoing HTTP call as tracing sees it: what it must carry, and how it is ended. */
export interface OutgoingCall {
  /**
   * The request id and the trace context to send (correlationHeaders): the `traceparent` of the
   * call's own client span when it has one, else the current scope's.
   */
  readonly headers: CorrelationHeaders;
  /** True when the call has a client span (its `traceparent` replaces any the caller had). */
  readonly traced: boolean;
  /**
   * Ends the call's client span, if any: with the status code it was answered with, or with null
   * and the reason it got no answer (`error.type`, e.g. an error code: never a message, which may
   * quote the request). A status of 400 or more, or no answer, is an error.
   */
  end(statusCode: number | null, errorType?: string): void;
}

const nothingToEnd = (): void => undefined;

/**
 * Starts an outgoing HTTP call (`method` to `url`). Under a recording span (a sampled request's,
 * an outbox delivery's, a webhook's, a holder sweep's) the call gets a client span, a child of
 * that span, named after its method, with the semantic conventions' attributes (`url.full`
 * without its query, which may carry what a trace must not) and the request id; its headers
 * carry that span's `traceparent`, so the downstream service's server span is its child. Under
 * no span or a non-recording one (an unsampled request's) there is no span and nothing to make,
 * not even a parse of `url`: the headers are the scope's own (an unsampled trace goes on with
 * flags 00).
 */
export function startOutgoingCall(method: string, url: string | URL): OutgoingCall {
  const active = context.active();
  const parent = trace.getSpan(active);
  if (!parent?.isRecording())
    return { headers: correlationHeaders(), traced: false, end: nothingToEnd };
  const target = typeof url === 'string' ? new URL(url) : url;
  const requestId = currentRequestId();
  const attributes: Attributes = {
    'http.request.method': method,
    'server.address': target.hostname,
    'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
    'url.full': `${target.origin}${target.pathname}`,
  };
  if (requestId) attributes[REQUEST_ID_ATTRIBUTE] = [requestId];
  const span = trace
    .getTracer(CLIENT_SPANS_SCOPE)
    .startSpan(method, { kind: SpanKind.CLIENT, attributes }, active);
  return {
    headers: context.with(trace.setSpan(active, span), correlationHeaders),
    traced: true,
    end: (statusCode, errorType) => endClientSpan(span, statusCode, errorType),
  };
}

function endClientSpan(span: Span, statusCode: number | null, errorType?: string): void {
  if (statusCode !== null) span.setAttribute('http.response.status_code', statusCode);
  if (statusCode === null || statusCode >= 400) {
    span.setAttribute(
      'error.type',
      statusCode === null ? (errorType ?? '_OTHER') : `${statusCode}`,
    );
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
