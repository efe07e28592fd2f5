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
 * The error of pino's standard serialization of it (pino-std-serializers' `err`, whose copy keeps
 * the error as its non-enumerable `raw`): pino-http wraps every `err` serializer in that one, so
 * every error a service logs reaches logSafeError as such a copy, with `type` and `message`
 * already written and the cause folded into the message. Anything else as it is.
 */
function original(error: object): object {
  const raw = (error as { raw?: unknown }).raw;
  const pinoCopy =
    !(error instanceof Error) &&
    typeof (error as { type?: unknown }).type === 'string' &&
    !Object.prototype.propertyIsEnumerable.call(error, 'raw');
  return pinoCopy && raw !== null && typeof raw === 'object' ? raw : error;
}

/**
 * The class of an error: its constructor's name, else its `name` (an object without a class of
 * its own), else `Object`. Not `instanceof Error`, which is false for an error made in another
 * realm (a vm context, Jest's module registry).
 */
function typeName(error: object): string {
  const constructor = (error as { constructor?: unknown }).constructor;
  const className = typeof constructor === 'function' ? constructor.name : '';
  if (className && className !== 'Object') return className;
  const name = (error as { name?: unknown }).name;
  if (typeof name === 'string' && name) return name;
  return className || 'Object';
}

/**
 * The pino `err` serializer of every service: type, message, stack, the safe fields above, and
 * the same for the driver error, the cause and an AggregateError's errors (a LogSafeError for
 * any object; anything else as it is).
 */
export function logSafeError(value: unknown, depth = 0): unknown {
  if (!value || typeof value !== 'object') return value;
  const error = original(value);
  const source = error as Record<string, unknown>;
  const type = typeName(error);
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
    if (Array.isArray(source.errors))
      result.errors = source.errors.map((inner) => logSafeError(inner, depth + 1));
  }
  return result;
}

/** The message of an error as a log line may carry it (see logSafeError). */
export function logSafeMessage(error: unknown): string {
  if (error && typeof error === 'object' && typeof (error as Error).message === 'string')
    return safeMessage((error as Error).message, error);
  return String(error);
}
