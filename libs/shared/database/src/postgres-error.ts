import { QueryFailedError } from 'typeorm';

/** SQLSTATE codes the services act on. */
const PG_UNIQUE_VIOLATION = '23505';
/** nextval past a sequence's MAXVALUE. */
export const PG_SEQUENCE_LIMIT_EXCEEDED = '2200H';

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
