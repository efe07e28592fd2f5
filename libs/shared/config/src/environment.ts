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
  ValidateBy,
  ValidationArguments,
  validateSync,
} from 'class-validator';
import { DateTime } from 'luxon';
import { ASYMMETRIC_ALGORITHMS, AuthMode, parsePublicKey } from '@bank/shared/auth';
import { corsOriginsProblem, parseCorsOrigins, trustProxyProblem } from '@bank/shared/http';

export const toBoolean = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return value;
  const text = value.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  return value; // left as is, so IsBoolean reports the variable
};

/** A URL PostgreSQL's driver can use: postgres:// or postgresql://, with a host. */
function isPostgresUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return ['postgres:', 'postgresql:'].includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);
const commaList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : value;

/** Variables every service reads. Each service extends this with its own. */
export class BaseEnvironment {
  /**
   * The service's own port variable (e.g. CARD_ISSUE_PORT): it wins over PORT, so one shell
   * (`npm start` runs both services) can give each service its port; PORT serves one process.
   */
  static readonly PORT_VARIABLE: string | undefined = undefined;

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
  @ValidateBy(
    {
      name: 'isPostgresUrl',
      validator: { validate: isPostgresUrl },
    },
    {
      message:
        'DATABASE_URL must be a postgres:// URL with a host, e.g. postgres://user:password@host:5432/db (special characters of the password percent-encoded)',
    },
  )
  DATABASE_URL?: string;

  /**
   * Direct (session) connection for migrations and advisory locks when DATABASE_URL goes
   * through a transaction-pooling PgBouncer; unset: DATABASE_URL serves both.
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_DIRECT_URL must be a postgres:// URL' })
  DATABASE_DIRECT_URL?: string;

  /**
   * The embedded database is for development: with NODE_ENV=production and no DATABASE_URL the
   * service refuses to start unless this is true (a demo; the production image lacks PGlite).
   */
  @Transform(toBoolean)
  @IsBoolean()
  ALLOW_EMBEDDED_DATABASE = false;

  /** Serve Swagger UI ({BASE_PATH}/docs) and the OpenAPI document ({BASE_PATH}/docs-json). */
  @Transform(toBoolean)
  @IsBoolean()
  DOCS_ENABLED = true;

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

  /** `json` (one object a line) or `pretty` (pino-pretty); unset: pretty in development only. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';

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

  /**
   * Which peers' X-Forwarded-For is believed when resolving the client address (the rate
   * limit's key): unset or off, none (the socket's peer is the client); a hop count (the
   * proxies in front, e.g. 1 behind one ingress); or a comma-separated list of proxy
   * addresses and networks. `true` is refused: any client could name its own address.
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && !trustProxyProblem(value),
      defaultMessage: (args?: ValidationArguments) =>
        (typeof args?.value === 'string' && trustProxyProblem(args.value)) ||
        'TRUST_PROXY must be a string',
    },
  })
  TRUST_PROXY?: string;

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

  /** Prometheus metrics on /metrics and the per-request instrumentation; false: neither. */
  @Transform(toBoolean)
  @IsBoolean()
  METRICS_ENABLED = true;

  /** A port of its own for /metrics (on HOST); unset: the service's HTTP port. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

  /**
   * Authentication of the API operations: `none` or `jwt` (bearer tokens). Unset: `none`,
   * except with NODE_ENV=production, where it must be chosen (see authProblems).
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['none', 'jwt'], { message: 'AUTH_MODE must be none or jwt' })
  AUTH_MODE?: AuthMode;

  /** The `iss` a token must carry (AUTH_MODE=jwt). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  AUTH_ISSUER?: string;

  /** Accepted `aud` values, comma-separated (AUTH_MODE=jwt). */
  @Transform(commaList)
  @IsOptional()
  @IsString({ each: true })
  AUTH_AUDIENCE?: string[];

  /** The issuer's JSON Web Key Set (AUTH_MODE=jwt; or AUTH_PUBLIC_KEY). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'AUTH_JWKS_URL must be an http(s) URL' })
  AUTH_JWKS_URL?: string;

  /** One public key, PEM (SPKI) or JWK JSON (AUTH_MODE=jwt; or AUTH_JWKS_URL). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  AUTH_PUBLIC_KEY?: string;

  /** Accepted signing algorithms, comma-separated; asymmetric only. */
  @Transform(commaList)
  @IsIn(ASYMMETRIC_ALGORITHMS, {
    each: true,
    message: `AUTH_ALGORITHMS may list only ${ASYMMETRIC_ALGORITHMS.join(', ')}`,
  })
  AUTH_ALGORITHMS: string[] = [...ASYMMETRIC_ALGORITHMS];

  /** Tolerated clock difference with the issuer for `exp` and `nbf`, in seconds. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(300)
  AUTH_CLOCK_TOLERANCE_S = 30;

  /** A token with an unknown `kid` refetches the JWKS at most once per this time. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  AUTH_JWKS_COOLDOWN_MS = 30_000;

  /** The JWKS is refetched when older than this. */
  @Type(() => Number)
  @IsInt()
  @Min(1_000)
  AUTH_JWKS_CACHE_MAX_AGE_MS = 600_000;

  /** A JWKS fetch taking longer fails (503). */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  AUTH_JWKS_TIMEOUT_MS = 5_000;

  /**
   * Origins whose browser scripts may call the API (CORS), comma-separated, each exactly as a
   * browser sends it in Origin (https://app.example.com); `*` for any, refused in production.
   * Unset or empty: no CORS headers at all (browsers allow same-origin calls only).
   */
  @Transform(parseCorsOrigins)
  @IsOptional()
  @IsString({ each: true })
  CORS_ORIGINS?: string[];
}

/** AUTH_MODE in force: unset means none (production refuses to start unset, see authProblems). */
export function authModeOf(env: BaseEnvironment): AuthMode {
  return env.AUTH_MODE ?? 'none';
}

/** The rules across the AUTH_* variables, each naming the variable and the rule (never a value). */
function authProblems(env: BaseEnvironment): string[] {
  const problems: string[] = [];
  if (env.NODE_ENV === 'production' && env.AUTH_MODE === undefined) {
    problems.push(
      'AUTH_MODE: must be set explicitly with NODE_ENV=production: jwt, or none to serve ' +
        'the API without authentication on purpose',
    );
  }
  if (env.AUTH_PUBLIC_KEY !== undefined) {
    try {
      parsePublicKey(env.AUTH_PUBLIC_KEY);
    } catch (error) {
      problems.push(`AUTH_PUBLIC_KEY: ${(error as Error).message}`);
    }
  }
  if (env.AUTH_MODE !== 'jwt') return problems;
  if (!env.AUTH_ISSUER) problems.push('AUTH_ISSUER: required with AUTH_MODE=jwt');
  if (!env.AUTH_AUDIENCE?.length) problems.push('AUTH_AUDIENCE: required with AUTH_MODE=jwt');
  if (!env.AUTH_ALGORITHMS.length) problems.push('AUTH_ALGORITHMS: must name an algorithm');
  if ((env.AUTH_JWKS_URL === undefined) === (env.AUTH_PUBLIC_KEY === undefined)) {
    problems.push('AUTH_JWKS_URL, AUTH_PUBLIC_KEY: exactly one is required with AUTH_MODE=jwt');
  }
  if (env.NODE_ENV === 'production' && env.AUTH_JWKS_URL?.startsWith('http:')) {
    problems.push(
      'AUTH_JWKS_URL: must be https with NODE_ENV=production (keys fetched in clear could be replaced)',
    );
  }
  return problems;
}

/** Variables whose value is a secret: a message names them and their rule, never their value. */
const SECRET_NAME = /SECRET|PASSWORD|TOKEN|PRIVATE|(^|_)KEY$/i;

/**
 * The text with the credentials of every URL in it masked: `postgres://app:***@db:5432/cards`.
 * Everything between `scheme://` and the last `@` of the token is the user information; the
 * user name stays, the rest (a password, or a token used as the user) becomes `***`. A
 * malformed URL (an unencoded `@` or `/` in the password) is masked all the same.
 */
export function maskCredentials(text: string): string {
  return text.replace(
    /([a-z][a-z0-9+.-]*:\/\/)([^\s"']*)@/gi,
    (_match, scheme: string, userInfo: string) => {
      const colon = userInfo.indexOf(':');
      return colon > 0 ? `${scheme}${userInfo.slice(0, colon)}:***@` : `${scheme}***@`;
    },
  );
}

/**
 * A variable's value with a URL's user information masked, from `://` (or the start, when the
 * scheme is missing) to the value's last `@`: a password with an unencoded space, quote, `/`
 * or `@` included. The user name before the first `:` stays.
 */
function maskUrlValue(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const scheme = value.indexOf('://');
  const start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
  const userInfo = value.slice(start, at);
  const colon = userInfo.indexOf(':');
  if (scheme < 0 && colon < 0) return value; // an e-mail address, not a URL
  const shown = colon > 0 ? `${userInfo.slice(0, colon)}:***` : '***';
  return `${value.slice(0, start)}${shown}${value.slice(at)}`;
}

/** How a variable's value may appear in a configuration message: `=<value>` or nothing. */
function shownValue(name: string, raw: unknown): string {
  if (SECRET_NAME.test(name)) return '';
  const value = typeof raw === 'string' ? maskUrlValue(raw) : raw;
  return `=${maskCredentials(JSON.stringify(value) ?? 'undefined')}`;
}

/**
 * Validates raw environment variables into a typed object; throws one error naming
 * every bad variable, so a misconfigured service stops at start-up. The message shows
 * each bad value as given, except secrets (named with their rule only) and the
 * credentials of URLs (masked).
 */
export function validateEnvironment<T extends BaseEnvironment>(
  cls: new () => T,
  raw: Record<string, unknown>,
): T {
  const portVariable = (cls as unknown as typeof BaseEnvironment).PORT_VARIABLE;
  const ownPort = portVariable ? raw[portVariable] : undefined;
  const given = ownPort === undefined || ownPort === '' ? raw : { ...raw, PORT: ownPort };
  const env = plainToInstance(cls, given, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: false, skipMissingProperties: false });
  // Each problem shows the value as given (the converted one may be NaN or null), under the
  // name of the variable it came from.
  const problems = errors.map(
    (e) =>
      `${e.property === 'PORT' && given !== raw ? portVariable : e.property}${shownValue(e.property, given[e.property])}: ${Object.values(
        e.constraints ?? {},
      )
        .map(maskCredentials)
        .join('; ')}`,
  );
  if (!DateTime.now().setZone(env.BUSINESS_TIME_ZONE).isValid) {
    problems.push(
      `BUSINESS_TIME_ZONE=${JSON.stringify(env.BUSINESS_TIME_ZONE)}: not a known IANA time zone`,
    );
  }
  if (env.NODE_ENV === 'production' && !env.DATABASE_URL && env.ALLOW_EMBEDDED_DATABASE !== true) {
    problems.push(
      'DATABASE_URL is required when NODE_ENV=production (the embedded database is for development; ALLOW_EMBEDDED_DATABASE=true overrides)',
    );
  }
  if (env.DATABASE_DIRECT_URL && !env.DATABASE_URL) {
    problems.push('DATABASE_DIRECT_URL is set without DATABASE_URL');
  }
  problems.push(...authProblems(env));
  const cors =
    Array.isArray(env.CORS_ORIGINS) && corsOriginsProblem(env.CORS_ORIGINS, env.NODE_ENV);
  if (cors) problems.push(`CORS_ORIGINS=${JSON.stringify(raw.CORS_ORIGINS)}: ${cors}`);
  if (problems.length) {
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return env;
}
