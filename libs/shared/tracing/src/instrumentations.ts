import type { RequestOptions } from 'node:http';
import { SpanStatusCode } from '@opentelemetry/api';
import {
  HttpInstrumentation,
  HttpInstrumentationConfig,
} from '@opentelemetry/instrumentation-http';
import { PgInstrumentation, PgInstrumentationConfig } from '@opentelemetry/instrumentation-pg';
import type { Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { REQUEST_ID_HEADER } from './correlation';

/** The instrumentation scope of the HTTP server and client spans. */
export const HTTP_SPANS_SCOPE = '@opentelemetry/instrumentation-http';

/** The instrumentation scope of the statements' spans. */
export const PG_SPANS_SCOPE = '@opentelemetry/instrumentation-pg';

/**
 * Probe and metrics requests (any BASE_PATH in front): scraped every few seconds, they would
 * drown the traces that matter and cost the most for the least.
 */
const UNTRACED_PATH = /^[^?]*\/(api\/health(\/live|\/ready|\/startup)?|metrics)\/?(\?.*)?$/;

export function isUntracedPath(url: string | undefined): boolean {
  return UNTRACED_PATH.test(url ?? '');
}

/**
 * An outgoing call's URL as its span records it (`url.full`): without the query string, which
 * may carry what a trace must not (a webhook receiver's token), and without credentials.
 */
export function urlWithoutQuery(options: RequestOptions): string {
  const protocol = options.protocol || 'http:';
  let host = options.hostname || options.host || 'localhost';
  const port = options.port ? String(options.port) : '';
  if (!host.includes(':') && port && port !== '80' && port !== '443') host += `:${port}`;
  const path = options.path || '/';
  const query = path.indexOf('?');
  return `${protocol}//${host}${query < 0 ? path : path.slice(0, query)}`;
}

/**
 * The HTTP instrumentation as the services use it: a server span per incoming request except the
 * probes and scrapes (instrumentFastify names it after its route and adds the request id), with
 * the path and never the query string, the caller's forwarded address or its User-Agent; a
 * client span per outgoing call made inside a span (none outside one: a call of no traced work),
 * its `url.full` without the query, and the request id it sends.
 */
export function httpInstrumentationConfig(): HttpInstrumentationConfig {
  return {
    ignoreIncomingRequestHook: (request) => isUntracedPath(request.url),
    // An undefined attribute is dropped: the server span keeps url.path, never url.query, and
    // no caller's address from X-Forwarded-For or Forwarded (an end user's, behind an ingress)
    // nor its User-Agent: of the request's headers, spans hold only the request id.
    startIncomingSpanHook: () => ({
      'url.query': undefined,
      'client.address': undefined,
      'user_agent.original': undefined,
    }),
    startOutgoingSpanHook: (options) => ({ 'url.full': urlWithoutQuery(options) }),
    requireParentforOutgoingSpans: true,
    headersToSpanAttributes: { client: { requestHeaders: [REQUEST_ID_HEADER] } },
  };
}

/** The SQL command of a statement, upper case (`SELECT`, `INSERT`, `COMMIT`), or undefined. */
export function operationName(text: string): string | undefined {
  const match = /^\s*([A-Za-z]+)/.exec(text);
  return match ? match[1].toUpperCase() : undefined;
}

/**
 * The pg instrumentation as the services use it: statements only under a span of a piece of work
 * (the schedulers' polling makes none), no span per connection or pool checkout, the statement's
 * text and never its parameters (they carry personal data). Each span is named after its command
 * and database (`SELECT card_issue`, the semantic conventions' form) with `db.operation.name`.
 */
export function pgInstrumentationConfig(): PgInstrumentationConfig {
  return {
    requireParentSpan: true,
    ignoreConnectSpans: true,
    enhancedDatabaseReporting: false,
    requestHook: (span, { connection, query }) => {
      if (!span.isRecording()) return; // an unsampled statement: nothing to name
      const operation = operationName(query.text);
      if (!operation) return;
      span.setAttribute('db.operation.name', operation);
      span.updateName(connection.database ? `${operation} ${connection.database}` : operation);
    },
  };
}

/** The instrumentations startTracing registers, configured as above. */
export function createInstrumentations(): [HttpInstrumentation, PgInstrumentation] {
  return [
    new HttpInstrumentation(httpInstrumentationConfig()),
    new PgInstrumentation(pgInstrumentationConfig()),
  ];
}

/** The SQLSTATE instrumentation-pg puts in a failed statement's (sanitized) exception event. */
const SANITIZED_SQLSTATE = /\(code: ([0-9A-Z]{5})\)/;

/**
 * Keeps the error message of a failed statement out of its span: instrumentation-pg sets the
 * span's status message to the error's message, which can quote a parameter (`invalid input
 * syntax for type integer: "<a name>"`), though its exception event already carries a sanitized
 * one. Before the span ends, its ERROR status loses the message and `error.type` gets the
 * SQLSTATE (which the instrumentation records only in its metrics). `pg.integration-spec.ts`
 * fails, and says this can go, once the instrumentation stops doing so
 * (docs/decisions/0034-tracing-what-spans-hold.md).
 */
export class PgErrorMessageRedaction implements SpanProcessor {
  onStart(): void {
    // Nothing to do when a span starts.
  }

  onEnding(span: Span): void {
    if (span.instrumentationScope.name !== PG_SPANS_SCOPE) return;
    if (span.status.code !== SpanStatusCode.ERROR) return;
    span.setStatus({ code: SpanStatusCode.ERROR });
    for (const event of span.events) {
      const message = event.attributes?.['exception.message'];
      const code = typeof message === 'string' ? SANITIZED_SQLSTATE.exec(message) : null;
      if (code) span.setAttribute('error.type', code[1]);
    }
  }

  onEnd(): void {
    // The span is exported by the batch processor.
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
