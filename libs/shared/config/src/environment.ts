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
import { Describe, VariableDescription } from './describe';

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

/** What each character that ends a URL's user information early is percent-encoded as. */
const URL_DELIMITERS: Record<string, string> = { '@': '%40', '/': '%2F', '?': '%3F', '#': '%23' };

/**
 * Why a URL's user name or password would be misread, or undefined: an unencoded "@", "/", "?"
 * or "#" in them ends the user information (or the host) early, and the driver then reads a
 * piece of the password as the host ("getaddrinfo ENOTFOUND" naming it). The user information
 * is taken as everything before the last "@" of the URL's head (its query left out, so that
 * an "@" there is not taken for one); the message says which characters to encode and how,
 * never the value.
 */
export function urlUserInfoProblem(value: string): string | undefined {
  const scheme = value.indexOf('://');
  if (scheme < 0) return undefined;
  const rest = value.slice(scheme + 3);
  const pathSlash = rest.lastIndexOf('/');
  const query = rest.indexOf('?', pathSlash + 1);
  const head = query < 0 ? rest : rest.slice(0, query);
  const at = head.lastIndexOf('@');
  if (at < 0) return undefined;
  const found = Object.keys(URL_DELIMITERS).filter((c) => head.slice(0, at).includes(c));
  if (!found.length) return undefined;
  return (
    `the user name or password has an unencoded ${found.map((c) => `"${c}"`).join(', ')}: ` +
    `percent-encode it (${found.map((c) => `${c} as ${URL_DELIMITERS[c]}`).join(', ')}; ` +
    `encodeURIComponent does it)`
  );
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

  @Describe(
    '`development`, `production` or `test`. `production` adds the production rules of this ' +
      'page and changes the default of `LOG_FORMAT`.',
  )
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Describe('Listen address.')
  @IsString()
  HOST = '0.0.0.0';

  @Describe(
    'HTTP port of a service started alone (a container, `nx serve`); 0 lets the system choose. ' +
      "The service's own port variable wins over it.",
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT!: number;

  @Describe(
    'Path prefix of the deployment (`{base_url}`), e.g. `/card-issue`: `/api/...`, `/docs` and ' +
      'the reference services move under it. Starts with `/`, does not end with one.',
    { default: 'unset: none' },
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\/[A-Za-z0-9._~\-/]*[A-Za-z0-9._~-]$/, {
    message: 'BASE_PATH must start with / and not end with /',
  })
  BASE_PATH?: string;

  @Describe(
    'PostgreSQL URL, `postgres://user:password@host:5432/db` (special characters of the ' +
      'user name and password percent-encoded: an unencoded `@`, `/`, `?` or `#` there is ' +
      'refused, saying to write `@` as `%40`); a refused value is shown with the password masked.',
    {
      default: 'unset: the embedded PGlite',
      production: 'Required, unless `ALLOW_EMBEDDED_DATABASE=true`',
    },
  )
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

  @Describe(
    'Direct (session) connection for migrations and advisory locks when `DATABASE_URL` goes ' +
      'through a transaction-pooling PgBouncer; only with `DATABASE_URL`.',
    { default: 'unset: `DATABASE_URL` serves both' },
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_DIRECT_URL must be a postgres:// URL' })
  DATABASE_DIRECT_URL?: string;

  @Describe(
    'Lets a production service run on the embedded database (a demo; the production image ' +
      'lacks PGlite).',
    { production: '`true` is the only way to start without `DATABASE_URL`' },
  )
  @Transform(toBoolean)
  @IsBoolean()
  ALLOW_EMBEDDED_DATABASE = false;

  @Describe(
    'Serve Swagger UI (`{BASE_PATH}/docs`) and the OpenAPI document (`{BASE_PATH}/docs-json`); ' +
      '`false`: neither (404).',
  )
  @Transform(toBoolean)
  @IsBoolean()
  DOCS_ENABLED = true;

  @Describe('Data directory of the embedded database; used only without `DATABASE_URL`.', {
    default: '`.data/pglite/<service>`',
  })
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  PGLITE_DATA_DIR?: string;

  @Describe('Connections in the database pool (1-200).')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE = 10;

  @Describe(
    'Apply pending migrations at start-up, under an advisory lock so replicas do not race; ' +
      '`false`: run them as a Job (`node main.js migrate`).',
  )
  @Transform(toBoolean)
  @IsBoolean()
  DB_MIGRATIONS_RUN = true;

  @Describe('PostgreSQL `statement_timeout` of every connection, in ms (at least 100).')
  @Type(() => Number)
  @IsInt()
  @Min(100)
  DB_STATEMENT_TIMEOUT_MS = 10_000;

  @Describe(
    'With `DATABASE_URL`: how long start-up waits for a database that takes writes (a ' +
      'connection on a server not in recovery, on `DATABASE_URL` and `DATABASE_DIRECT_URL`), ' +
      'trying again after 250 ms doubling to 5 s, in ms; meanwhile the port answers 503 with ' +
      '`Retry-After` (liveness 200, readiness 503). Past it the process exits 1. 0: one try.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  DB_STARTUP_WAIT_MS = 300_000;

  @Describe('`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.')
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Describe(
    '`json` (one object a line) or `pretty` (readable lines through `pino-pretty`, a ' +
      'development dependency: where it is not installed, JSON).',
    { default: 'unset: `pretty` with `NODE_ENV=development`, else `json`' },
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';

  @Describe(
    'IANA time zone of business dates ("today", request ids, courier dates, age rules) and of ' +
      'every local timestamp the service writes.',
  )
  @IsString()
  BUSINESS_TIME_ZONE = 'Europe/Moscow';

  @Describe(
    'Requests per window per caller over every route but the health check (429 with ' +
      "`Retry-After` beyond): the token's subject with `AUTH_MODE=jwt`, else the client address; " +
      '0: no rate limit.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  RATE_LIMIT = 0;

  @Describe('The rate limit window, in ms.')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  RATE_LIMIT_WINDOW_MS = 60_000;

  @Describe(
    'Proxies whose `X-Forwarded-For` is believed for the client address (the key of the rate ' +
      'limit without a token): a hop count (`1` behind one ingress) or a comma-separated list of addresses, CIDRs ' +
      'and `loopback`, `linklocal`, `uniquelocal`. `true` is refused: any client could name its ' +
      'own address.',
    { default: "unset: none (the socket's peer is the client)" },
  )
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

  @Describe('How long an `Idempotency-Key` and its response are kept, in hours (at least 24).')
  @Type(() => Number)
  @IsInt()
  @Min(24)
  IDEMPOTENCY_KEY_TTL_HOURS = 24;

  @Describe(
    'Lease of the request holding an `Idempotency-Key`, renewed every third of it while the ' +
      "request runs: a dead holder's key is taken over after at most this long (ms).",
  )
  @Type(() => Number)
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  IDEMPOTENCY_LEASE_MS = 5_000;

  @Describe(
    'How long a repeat waits for the running request with its key before 409 with ' +
      '`Retry-After` (ms).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(60_000)
  IDEMPOTENCY_WAIT_MS = 10_000;

  @Describe(
    '`Retry-After` of every 503 that knows no better (the database, the shutdown), in seconds.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3600)
  RETRY_AFTER_SECONDS = 5;

  @Describe(
    'An outage (the database out of reach, a downstream service down) is logged at once per ' +
      'failure kind, then one line per interval with the count of failed requests, calls or ' +
      'background rounds, without a stack (ms).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  ERROR_LOG_INTERVAL_MS = 10_000;

  @Describe(
    'Headers and body must arrive within this time (ms), else 408 and the connection is ' +
      'closed: a client trickling its body cannot hold a connection for ever.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  HTTP_REQUEST_TIMEOUT_MS = 15_000;

  @Describe(
    'An idle keep-alive connection is closed after this time (ms); keep it above the load ' +
      "balancer's idle timeout.",
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 72_000;

  @Describe(
    'From SIGTERM, the time requests in flight get to finish (ms); then the connections left ' +
      'are closed and the process exits. Keep it below the grace period minus the preStop sleep.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  SHUTDOWN_TIMEOUT_MS = 25_000;

  @Describe(
    'Prometheus metrics on `/metrics` and the per-request instrumentation; `false`: neither.',
  )
  @Transform(toBoolean)
  @IsBoolean()
  METRICS_ENABLED = true;

  @Describe('A port of its own for `/metrics` (on `HOST`).', {
    default: "unset: the service's HTTP port",
  })
  @Transform(emptyToUndefined)
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

  @Describe(
    '`none`: the API is open; `jwt`: each API operation needs a bearer JWT with its scope ' +
      '(docs/security.md).',
    {
      default: 'unset: `none`',
      production: 'Required (`jwt`, or `none` on purpose, which logs a warning)',
    },
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['none', 'jwt'], { message: 'AUTH_MODE must be none or jwt' })
  AUTH_MODE?: AuthMode;

  @Describe('The `iss` every token must carry; required with `AUTH_MODE=jwt`.')
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  AUTH_ISSUER?: string;

  @Describe(
    'Accepted `aud` values, comma-separated (a token must name one); required with ' +
      '`AUTH_MODE=jwt`.',
  )
  @Transform(commaList)
  @IsOptional()
  @IsString({ each: true })
  AUTH_AUDIENCE?: string[];

  @Describe(
    "The issuer's JSON Web Key Set (keys chosen by `kid`, cached); with `AUTH_MODE=jwt`, this " +
      'or `AUTH_PUBLIC_KEY`.',
    { production: 'Must be https' },
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'AUTH_JWKS_URL must be an http(s) URL' })
  AUTH_JWKS_URL?: string;

  @Describe(
    'One public key instead of a JWKS: PEM (`BEGIN PUBLIC KEY`, `\\n` escapes taken) or a ' +
      'public JWK as JSON; private and symmetric keys are refused.',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  AUTH_PUBLIC_KEY?: string;

  @Describe('Accepted signing algorithms, comma-separated; asymmetric only (no HS*, never `none`).')
  @Transform(commaList)
  @IsIn(ASYMMETRIC_ALGORITHMS, {
    each: true,
    message: `AUTH_ALGORITHMS may list only ${ASYMMETRIC_ALGORITHMS.join(', ')}`,
  })
  AUTH_ALGORITHMS: string[] = [...ASYMMETRIC_ALGORITHMS];

  @Describe('Tolerated clock difference with the issuer for `exp` and `nbf`, in seconds (0-300).')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(300)
  AUTH_CLOCK_TOLERANCE_S = 30;

  @Describe(
    'A token with an unknown `kid` refetches the JWKS at most once per this time (ms): a key ' +
      'rotation is picked up, forged kids cause no fetch storm.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  AUTH_JWKS_COOLDOWN_MS = 30_000;

  @Describe('The JWKS is refetched when older than this (ms).')
  @Type(() => Number)
  @IsInt()
  @Min(1_000)
  AUTH_JWKS_CACHE_MAX_AGE_MS = 600_000;

  @Describe(
    'A JWKS fetch taking longer fails (ms): 503 with `Retry-After`, the token neither accepted ' +
      'nor refused.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  AUTH_JWKS_TIMEOUT_MS = 5_000;

  @Describe(
    'Origins whose browser scripts may call the API (CORS), comma-separated, each exactly as ' +
      'a browser sends `Origin` (`https://app.example.com`); `*` for any.',
    { default: 'unset: no CORS headers (same-origin calls only)', production: '`*` is refused' },
  )
  @Transform(parseCorsOrigins)
  @IsOptional()
  @IsString({ each: true })
  CORS_ORIGINS?: string[];
}

/**
 * What the generated configuration page says of the service's own port variable
 * (BaseEnvironment.PORT_VARIABLE), which is not a property of the class.
 */
export const PORT_VARIABLE_DESCRIPTION: VariableDescription = {
  effect:
    "This service's own port; wins over `PORT`, so one shell (`npm start`) gives each service " +
    'its port.',
  default: 'unset: `PORT`',
};

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
  for (const name of ['DATABASE_URL', 'DATABASE_DIRECT_URL'] as const) {
    const value = given[name];
    const problem = typeof value === 'string' && urlUserInfoProblem(value);
    if (problem) problems.push(`${name}${shownValue(name, value)}: ${problem}`);
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
