import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import { failedWhileConnecting } from './listened-client';

/** SQLSTATE codes the services act on. */
const PG_UNIQUE_VIOLATION = '23505';
/** nextval past a sequence's MAXVALUE. */
export const PG_SEQUENCE_LIMIT_EXCEEDED = '2200H';
/** statement_timeout (or a cancel request) ended the statement. */
const PG_QUERY_CANCELED = '57014';

/** What PostgreSQL said about a failed statement: its SQLSTATE and, if any, the constraint. */
export interface PostgresErrorInfo {
  code: string;
  constraint?: string;
}

/**
 * The one reader of PostgreSQL error codes: the SQLSTATE (and violated constraint) of a
 * failed TypeORM query, or undefined for anything else (a dropped connection, a bug).
 */
export function postgresError(error: unknown): PostgresErrorInfo | undefined {
  if (!(error instanceof QueryFailedError)) return undefined;
  const driverError = error.driverError as { code?: unknown; constraint?: unknown } | undefined;
  if (typeof driverError?.code !== 'string') return undefined;
  return {
    code: driverError.code,
    constraint: typeof driverError.constraint === 'string' ? driverError.constraint : undefined,
  };
}

/** The constraint a unique violation hit ('' when PostgreSQL named none), else undefined. */
export function uniqueViolationConstraint(error: unknown): string | undefined {
  const info = postgresError(error);
  return info?.code === PG_UNIQUE_VIOLATION ? (info.constraint ?? '') : undefined;
}

/**
 * Why the database could not serve a statement, when the cause is the database being out of
 * reach rather than the statement: the kind names the failure in logs (one line per kind).
 * - `connection`: the server is not there or went away (refused, reset, terminated, shutting
 *   down or starting up: SQLSTATE class 08, 57P01-57P03, ECONNREFUSED, "Connection terminated";
 *   or a transaction's query runner that TypeORM released when its connection died between
 *   two statements: QueryRunnerProviderAlreadyReleasedError, QueryRunnerAlreadyReleasedError).
 * - `pool-timeout`: no connection could be had in time (the pool's connect timeout).
 * - `overloaded`: the server refuses more connections (53300) or is out of resources (53xxx).
 * - `statement-timeout`: statement_timeout cancelled the statement (57014). Every statement
 *   here is an index look-up or a short write, so the time went on waiting (locks, an
 *   overloaded server): worth a retry, not a bug report.
 * - `read-only`: the server takes no writes (25006): a standby answered, e.g. while a failover
 *   or a restarted primary's recovery lets a router send connections to it for a moment.
 */
export type DatabaseUnavailableKind =
  'connection' | 'pool-timeout' | 'overloaded' | 'statement-timeout' | 'read-only';

/** cannot execute <statement> in a read-only transaction. */
const PG_READ_ONLY_SQL_TRANSACTION = '25006';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Messages of pg and pg-pool for a connection that died or could not be made (they carry no code). */
const CONNECTION_MESSAGES =
  /Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end|connection is closed|Connection is not established/i;
const POOL_TIMEOUT_MESSAGE =
  /timeout exceeded when trying to connect|Connection terminated due to connection timeout/i;

function kindOfSqlState(code: string): DatabaseUnavailableKind | undefined {
  if (code.startsWith('08') || ['57P01', '57P02', '57P03', '3D000'].includes(code)) {
    return 'connection';
  }
  if (code.startsWith('53')) return 'overloaded';
  if (code === PG_QUERY_CANCELED) return 'statement-timeout';
  if (code === PG_READ_ONLY_SQL_TRANSACTION) return 'read-only';
  return undefined;
}

function kindOf(error: unknown, depth: number): DatabaseUnavailableKind | undefined {
  if (!error || typeof error !== 'object' || depth > 3) return undefined;
  // TypeORM releases a query runner whose connection emits `error` (the server ended it): the
  // transaction's next statement (or its COMMIT, never sent) fails with one of these, carrying
  // neither a code nor pg's message.
  if (
    error instanceof QueryRunnerProviderAlreadyReleasedError ||
    error instanceof QueryRunnerAlreadyReleasedError
  )
    return 'connection';
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return 'connection';
    const kind = /^[0-9A-Z]{5}$/.test(code) ? kindOfSqlState(code) : undefined;
    if (kind) return kind;
  }
  if (typeof message === 'string') {
    if (POOL_TIMEOUT_MESSAGE.test(message)) return 'pool-timeout';
    if (CONNECTION_MESSAGES.test(message)) return 'connection';
  }
  // TypeORM wraps the driver's error (QueryFailedError.driverError); Node wraps the attempts
  // at several addresses of one host in an AggregateError.
  if (error instanceof QueryFailedError) return kindOf(error.driverError, depth + 1);
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const kind = kindOf(inner, depth + 1);
      if (kind) return kind;
    }
  }
  const cause = (error as { cause?: unknown }).cause;
  return cause ? kindOf(cause, depth + 1) : undefined;
}

/**
 * The kind of database unavailability behind an error (see DatabaseUnavailableKind), or
 * undefined when the error is about something else (a constraint, a bug). pg and pg-pool
 * reject with plain errors (a socket error, "Connection terminated ...") when a connection
 * cannot be had, so those are read too; an HTTP client's error (axios sets isAxiosError) is
 * a downstream service's failure, never the database's.
 */
export function databaseUnavailable(error: unknown): DatabaseUnavailableKind | undefined {
  if ((error as { isAxiosError?: unknown } | null)?.isAxiosError === true) return undefined;
  return kindOf(error, 0);
}

/**
 * The title of a database outage behind an error, e.g. "Database unavailable (connection)",
 * or undefined: one log line per such title per interval (the error filter's answers, the
 * schedulers' and the delivery loops' failures), never a stack.
 */
export function databaseOutage(error: unknown): string | undefined {
  const kind = databaseUnavailable(error);
  return kind && `Database unavailable (${kind})`;
}

/**
 * The server or the network ended an established connection: PostgreSQL's administrator or
 * crash shutdown (57P01 `pg_terminate_backend`, a failover; 57P02), a reset or broken socket,
 * pg's "Connection terminated unexpectedly". Not 57P03 (starting up: answered at connect).
 */
const LOST_CODES = new Set(['57P01', '57P02', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT']);
const LOST_MESSAGE = /Connection terminated unexpectedly/i;

function lostInFlight(error: unknown, depth: number): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  if (failedWhileConnecting(error)) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && LOST_CODES.has(code)) return true;
  if (typeof message === 'string' && LOST_MESSAGE.test(message)) return true;
  if (error instanceof QueryFailedError) return lostInFlight(error.driverError, depth + 1);
  const cause = (error as { cause?: unknown }).cause;
  return cause ? lostInFlight(cause, depth + 1) : false;
}

/**
 * True when the database connection was lost while a statement or a COMMIT was on it, so that
 * what the request wrote may or may not be stored; false for the database out of reach before
 * anything was sent (refused, unknown host, the pool's connect timeout, a server starting up or
 * one that takes no writes) and for every other error. Read only for a failure already known to
 * be the database's (databaseUnavailable), so it costs nothing on the way of a served request.
 */
export function connectionLostInFlight(error: unknown): boolean {
  return databaseUnavailable(error) === 'connection' && lostInFlight(error, 0);
}
