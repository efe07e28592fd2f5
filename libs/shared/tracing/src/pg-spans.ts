import { EventEmitter, errorMonitor } from 'node:events';
import { Attributes, Span, SpanKind, SpanStatusCode, trace, Tracer } from '@opentelemetry/api';

/** The instrumentation scope of the statements' spans (instrumentPg). */
export const PG_SPANS_SCOPE = '@bank/shared/tracing/pg';

/** What a statement span reads of a node-postgres client (pg.Client). */
export interface PgClientLike {
  connectionParameters?: { database?: string; host?: string; port?: number | string };
}

/** node-postgres's Client class, as instrumentPg patches it. */
export interface PgClientClass {
  prototype: { query: (this: PgClientLike, ...args: unknown[]) => unknown };
}

/** The SQL command of a statement, upper case (`SELECT`, `INSERT`, `COMMIT`), or undefined. */
export function operationName(text: string): string | undefined {
  const match = /^\s*([A-Za-z]+)/.exec(text);
  return match ? match[1].toUpperCase() : undefined;
}

/** A failed statement's `error.type`: its SQLSTATE (`23505`), or the error's code, or `_OTHER`. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code ? code : '_OTHER';
}

/**
 * Statement spans for node-postgres: patches `Client.prototype.query` (every pooled connection's,
 * whoever loaded pg) so that a statement run under a recording span (a sampled request's, an
 * outbox delivery's, a sweep's) gets a CLIENT span, a child of it, with the semantic conventions'
 * attributes: `db.system.name`, `db.namespace`, `server.address`, `server.port`, `db.query.text`
 * (the statement with its placeholders, never its parameters: they carry personal data) and
 * `db.operation.name`; a failed one `error.type` (its SQLSTATE) and the ERROR status, never the
 * error's message (it may quote a parameter). Every other statement costs a context read: under
 * no span (an unsampled request, the schedulers' polling) pg runs as if unpatched, and no
 * connection, pool checkout or OpenTelemetry metric makes anything. Returns the undo.
 *
 * It replaced `@opentelemetry/instrumentation-pg` (docs/tracing.md, docs/benchmarks.md), which
 * for every statement wrapped the pool's checkout and the query with rest-argument wrappers, and
 * for a traced one built its attributes twice (the span's, and those of a duration histogram
 * nothing exports), bound the callback to the context and put the error's message on the span.
 */
export function instrumentPg(tracer: Tracer, client: PgClientClass): () => void {
  const proto = client.prototype;
  const original = proto.query;
  proto.query = function query(this: PgClientLike) {
    const parent = trace.getActiveSpan();
    // eslint-disable-next-line prefer-rest-params
    const args = arguments as unknown as unknown[];
    if (parent === undefined || !parent.isRecording()) return original.apply(this, args);
    return tracedQuery(tracer, this, original, args);
  };
  return () => {
    proto.query = original;
  };
}

function tracedQuery(
  tracer: Tracer,
  client: PgClientLike,
  original: (this: PgClientLike, ...args: unknown[]) => unknown,
  args: unknown[],
): unknown {
  const config = args[0];
  const text =
    typeof config === 'string'
      ? config
      : typeof (config as { text?: unknown } | null)?.text === 'string'
        ? (config as { text: string }).text
        : undefined;
  const operation = text === undefined ? undefined : operationName(text);
  const params = client.connectionParameters ?? {};
  const attributes: Attributes = {
    'db.system.name': 'postgresql',
    'db.namespace': params.database,
    'server.address': params.host,
    'server.port': params.port === undefined ? undefined : Number(params.port),
  };
  if (text !== undefined) attributes['db.query.text'] = text;
  if (operation !== undefined) attributes['db.operation.name'] = operation;
  const span = tracer.startSpan(
    operation && params.database ? `${operation} ${params.database}` : (operation ?? 'postgresql'),
    { kind: SpanKind.CLIENT, attributes },
  );
  const last = args.length - 1;
  const callback = args[last];
  if (last > 0 && typeof callback === 'function') {
    args[last] = function ended(this: unknown, error: unknown, ...rest: unknown[]) {
      endStatement(span, error);
      return (callback as (...a: unknown[]) => unknown).call(this, error, ...rest);
    };
    return callOriginal(span, original, client, args);
  }
  const configured = config as { callback?: unknown; submit?: unknown } | null;
  if (typeof configured?.callback === 'function' && typeof configured.submit !== 'function') {
    // query({ text, values, callback }): the callback is the config's.
    const configCallback = configured.callback as (...a: unknown[]) => unknown;
    args[0] = {
      ...configured,
      callback(this: unknown, error: unknown, ...rest: unknown[]) {
        endStatement(span, error);
        return configCallback.call(this, error, ...rest);
      },
    };
    return callOriginal(span, original, client, args);
  }
  const result = callOriginal(span, original, client, args);
  if (typeof (result as PromiseLike<unknown> | null)?.then === 'function')
    (result as PromiseLike<unknown>).then(
      () => endStatement(span, null),
      (error: unknown) => endStatement(span, error ?? new Error('rejected')),
    );
  else if (result instanceof EventEmitter) {
    // A submittable (a pg.Query, a cursor, a stream): it ends with its 'end' (or a stream's
    // 'close') or fails with 'error', watched through errorMonitor so that an 'error' nobody
    // listens to still throws as it would without tracing.
    result.once('end', () => endStatement(span, null));
    result.once('close', () => endStatement(span, null));
    result.once(errorMonitor, (error: unknown) => endStatement(span, error));
  } else endStatement(span, null);
  return result;
}

/** Runs the statement; one that throws before it is sent ends its span as failed. */
function callOriginal(
  span: Span,
  original: (this: PgClientLike, ...args: unknown[]) => unknown,
  client: PgClientLike,
  args: unknown[],
): unknown {
  try {
    return original.apply(client, args);
  } catch (error) {
    endStatement(span, error);
    throw error;
  }
}

/** Ends a statement's span, once: failed (`error.type`, ERROR) when `error` is set. */
function endStatement(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  if (error) {
    span.setAttribute('error.type', errorType(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
