import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';
import { DateTime } from 'luxon';

export const toBoolean = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return value;
  const text = value.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  return value; // left as is, so IsBoolean reports the variable
};

const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** Variables every service reads. Each service extends this with its own. */
export class BaseEnvironment {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IsString()
  HOST = '0.0.0.0';

  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT!: number;

  /** Path prefix of the deployment, e.g. /card-issue; empty for none. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\/[A-Za-z0-9._~\-/]*[A-Za-z0-9._~-]$/, {
    message: 'BASE_PATH must start with / and not end with /',
  })
  BASE_PATH?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  /** Data directory of the embedded database, used only without DATABASE_URL. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  PGLITE_DATA_DIR?: string;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE = 10;

  @Transform(toBoolean)
  @IsBoolean()
  DB_MIGRATIONS_RUN = true;

  @Type(() => Number)
  @IsInt()
  @Min(100)
  DB_STATEMENT_TIMEOUT_MS = 10_000;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @IsString()
  BUSINESS_TIME_ZONE = 'Europe/Moscow';

  /** Requests per window per client address; 0 turns rate limiting off. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  RATE_LIMIT = 0;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  RATE_LIMIT_WINDOW_MS = 60_000;

  /** How long an Idempotency-Key and its response are kept. */
  @Type(() => Number)
  @IsInt()
  @Min(24)
  IDEMPOTENCY_KEY_TTL_HOURS = 24;

  /**
   * Lease of the request holding an Idempotency-Key, renewed every third of it while the
   * request runs: a key whose holder died is taken over after at most this long.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  IDEMPOTENCY_LEASE_MS = 5_000;

  /** How long a request waits for a parallel one with the same key before 409 in progress. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(60_000)
  IDEMPOTENCY_WAIT_MS = 10_000;

  /** Retry-After (seconds) on every 503 (the database or a downstream service unavailable). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3600)
  RETRY_AFTER_SECONDS = 5;

  /** An outage (the database out of reach) is logged once per failure kind per this interval. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  ERROR_LOG_INTERVAL_MS = 10_000;

  /**
   * The whole request (headers and body) must arrive within this time, else 408 and the
   * connection is closed: a client trickling its body cannot hold a connection for ever.
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  HTTP_REQUEST_TIMEOUT_MS = 15_000;

  /** An idle keep-alive connection is closed after this time (below a load balancer's idle timeout is wrong: keep it above). */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 72_000;

  /**
   * From SIGTERM, the time in-flight requests get to finish; then every connection left is
   * closed and the process exits. Keep it below the grace period (k8s: minus the preStop sleep).
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  SHUTDOWN_TIMEOUT_MS = 25_000;
}

/**
 * Validates raw environment variables into a typed object; throws one error naming
 * every bad variable, so a misconfigured service stops at start-up.
 */
export function validateEnvironment<T extends BaseEnvironment>(
  cls: new () => T,
  raw: Record<string, unknown>,
): T {
  const env = plainToInstance(cls, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: false, skipMissingProperties: false });
  // Each problem shows the value as given: the converted one may be NaN or null.
  const problems = errors.map(
    (e) =>
      `${e.property}=${JSON.stringify(raw[e.property])}: ${Object.values(e.constraints ?? {}).join('; ')}`,
  );
  if (!DateTime.now().setZone(env.BUSINESS_TIME_ZONE).isValid) {
    problems.push(
      `BUSINESS_TIME_ZONE=${JSON.stringify(env.BUSINESS_TIME_ZONE)}: not a known IANA time zone`,
    );
  }
  if (problems.length) {
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return env;
}
