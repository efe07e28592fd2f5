/**
 * What of an error may go into a log line. pino's standard serializer copies every enumerable
 * property, and TypeORM's QueryFailedError carries the statement's `parameters` (a whole row:
 * phone, e-mail, passport, addresses) and the driver's error (its `detail` quotes the values of
 * a violated key, its `where` a PL/pgSQL context). Only the fields below are kept: the kind of
 * failure and where it happened, never the data it happened to.
 */
const SAFE_FIELDS = [
  'code',
  'errno',
  'syscall',
  'severity',
  'routine',
  'constraint',
  'table',
  'column',
  'schema',
  'dataType',
  'statusCode',
] as const;

/** Nested errors followed (a QueryFailedError's driver error, a cause, an AggregateError's parts). */
const MAX_DEPTH = 3;

/** SQLSTATE class 22 (data exception): PostgreSQL quotes the offending value in the message. */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

function sqlState(error: object): string | undefined {
  const own = (error as { code?: unknown }).code;
  if (typeof own === 'string') return own;
  const driver = (error as { driverError?: { code?: unknown } }).driverError?.code;
  return typeof driver === 'string' ? driver : undefined;
}

/** The message with any value PostgreSQL quoted in it replaced. */
function safeMessage(message: string, error: object): string {
  const code = sqlState(error);
  return code && DATA_EXCEPTION.test(code) ? message.replace(/"[^"]*"/g, '"[REDACTED]"') : message;
}

export interface LogSafeError {
  type: string;
  message: string;
  stack?: string;
  [field: string]: unknown;
}

/**
 * The pino `err` serializer of every service: type, message, stack, the safe fields above, and
 * the same for the driver error, the cause and an AggregateError's errors (a LogSafeError for
 * any object; anything else as it is).
 */
export function logSafeError(error: unknown, depth = 0): unknown {
  if (!error || typeof error !== 'object') return error;
  const source = error as Record<string, unknown>;
  const type =
    error instanceof Error ? error.constructor.name : Object.prototype.toString.call(error);
  const rawMessage = typeof source.message === 'string' ? source.message : '';
  const message = safeMessage(rawMessage, error);
  const result: LogSafeError = { type, message };
  if (typeof source.stack === 'string') {
    result.stack = rawMessage ? source.stack.split(rawMessage).join(message) : source.stack;
  }
  for (const field of SAFE_FIELDS) {
    const value = source[field];
    if (typeof value === 'string' || typeof value === 'number') result[field] = value;
  }
  if (depth < MAX_DEPTH) {
    if (source.driverError) result.driverError = logSafeError(source.driverError, depth + 1);
    if (source.cause) result.cause = logSafeError(source.cause, depth + 1);
    if (error instanceof AggregateError)
      result.errors = error.errors.map((inner) => logSafeError(inner, depth + 1));
  }
  return result;
}

/** The message of an error as a log line may carry it (see logSafeError). */
export function logSafeMessage(error: unknown): string {
  if (error && typeof error === 'object' && typeof (error as Error).message === 'string')
    return safeMessage((error as Error).message, error);
  return String(error);
}
