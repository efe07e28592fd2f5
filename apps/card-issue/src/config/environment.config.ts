import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
  ValidationArguments,
} from 'class-validator';
import {
  BaseEnvironment,
  Describe,
  MIN_SECRET_BITS,
  secretStrengthProblems,
  toBoolean,
} from '@bank/shared/config';
import { parseCidrList } from '@bank/shared/webhooks';

export const SERVICE_NAME = 'card-issue';

/** X-secret used outside production when X_SECRET is unset (a warning is logged at start-up). */
export const DEV_X_SECRET = 'dev-secret';

const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);
const withoutTrailingSlash = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value !== '' ? value.replace(/\/+$/, '') : undefined;
const HTTP_URL = /^https?:\/\/[^\s/]+(\/[^\s]*)?$/;

/** Shortest X_SECRET accepted with NODE_ENV=production. */
export const MIN_PRODUCTION_SECRET_LENGTH = 32;

/**
 * The rules a production X_SECRET breaks, each worded without the value (the start-up
 * message names the rule, never the secret): its length, the development default, whitespace
 * around it, and its strength (secretStrengthProblems: no short pattern repeated, not made of
 * default words, at least 128 bits of estimated entropy).
 */
export function productionSecretRules(secret: string): string[] {
  const broken: string[] = [];
  if (secret.length < MIN_PRODUCTION_SECRET_LENGTH)
    broken.push(
      `X_SECRET must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters with NODE_ENV=production`,
    );
  if (secret.trim() === DEV_X_SECRET)
    broken.push('X_SECRET must not be the development default with NODE_ENV=production');
  if (secret !== secret.trim()) broken.push('X_SECRET must not begin or end with whitespace');
  broken.push(...secretStrengthProblems('X_SECRET', secret.trim()));
  return broken;
}

/** Configuration of the card issue service (docs/configuration.md lists every variable). */
export class CardIssueEnvironment extends BaseEnvironment {
  static override readonly PORT_VARIABLE = 'CARD_ISSUE_PORT';
  override PORT = 3000;

  @Describe(
    'Secret the reference services require in the `X-secret` header, and that the gateways ' +
      'send (never logged).',
    {
      default: 'unset: `dev-secret`, with a warning at start-up',
      production: `Required: at least ${MIN_PRODUCTION_SECRET_LENGTH} characters and ${MIN_SECRET_BITS} bits of estimated entropy (security.md), not \`${DEV_X_SECRET}\`, no surrounding whitespace`,
    },
  )
  @Transform(emptyToUndefined)
  @ValidateIf((env: CardIssueEnvironment) => env.NODE_ENV === 'production')
  @IsString()
  @IsNotEmpty({ message: 'X_SECRET is required when NODE_ENV=production' })
  @ValidateBy({
    name: 'isProductionSecret',
    validator: {
      // A missing value is IsNotEmpty's to report.
      validate: (value: unknown) =>
        typeof value !== 'string' || productionSecretRules(value).length === 0,
      defaultMessage: ({ value }: ValidationArguments) =>
        productionSecretRules(String(value)).join('; '),
    },
  })
  X_SECRET?: string;

  @Describe('Base URL of the user service.', {
    default: "unset: this service's own `http://127.0.0.1:<port>{BASE_PATH}/user-api`",
  })
  @Transform(withoutTrailingSlash)
  @IsOptional()
  @Matches(HTTP_URL, { message: 'USER_API_URL must be an http(s) URL' })
  USER_API_URL?: string;

  @Describe('Base URL of the branch service.', { default: 'unset: its own `.../branch-api`' })
  @Transform(withoutTrailingSlash)
  @IsOptional()
  @Matches(HTTP_URL, { message: 'BRANCH_API_URL must be an http(s) URL' })
  BRANCH_API_URL?: string;

  @Describe(
    'Base URL of the operation service (`.../operation-api-v2` serves the same interface).',
    { default: 'unset: its own `.../operation-api`' },
  )
  @Transform(withoutTrailingSlash)
  @IsOptional()
  @Matches(HTTP_URL, { message: 'OPERATION_API_URL must be an http(s) URL' })
  OPERATION_API_URL?: string;

  @Describe('How long one downstream call may take before it counts as unavailable (ms).')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(120_000)
  DOWNSTREAM_TIMEOUT_MS = 2_000;

  @Describe(
    'Further attempts of an idempotent downstream call after a timeout, connection error, 408, ' +
      '429 or 5xx (0-10).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10)
  DOWNSTREAM_RETRIES = 2;

  @Describe(
    'Backoff of the first retry (ms): the n-th waits between half and all of this × 2^(n-1), or ' +
      "the service's `Retry-After` when longer.",
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(60_000)
  DOWNSTREAM_RETRY_DELAY_MS = 100;

  @Describe(
    'Time one incoming request may spend on downstream calls, attempts, backoffs and ' +
      '`Retry-After` waits included (ms); past it the request answers 503 at once.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(120_000)
  DOWNSTREAM_REQUEST_BUDGET_MS = 3_000;

  @Describe(
    "Attempts to a downstream service that its breaker's window must hold before their failure " +
      "rate can open it (a dead service's breaker opens at this many failed attempts); 0: no " +
      'breaker.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000)
  DOWNSTREAM_BREAKER_FAILURES = 20;

  @Describe(
    "Share of failed attempts in the window above which a downstream service's breaker opens " +
      '(0.01-0.99).',
  )
  @Type(() => Number)
  @IsNumber()
  @Min(0.01)
  @Max(0.99)
  DOWNSTREAM_BREAKER_FAILURE_RATE = 0.5;

  @Describe("The breaker's sliding window: the attempts of this last stretch of time count (ms).")
  @Type(() => Number)
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  DOWNSTREAM_BREAKER_WINDOW_MS = 10_000;

  @Describe(
    'How long an open breaker fails calls at once before one probe call may try the service ' +
      'again (ms).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(600_000)
  DOWNSTREAM_BREAKER_OPEN_MS = 5_000;

  @Describe(
    'Timed work: the automatic status moves, the hourly purges and sweeps; `false`: nothing ' +
      'moves by itself.',
  )
  @Transform(toBoolean)
  @IsBoolean()
  SCHEDULER_ENABLED = true;

  @Describe('How often the scheduler looks for due requests (ms).')
  @Type(() => Number)
  @IsInt()
  @Min(100)
  SCHEDULER_TICK_MS = 5_000;

  @Describe('Time in CREATED before the move to PROCESSING (ms).')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  SCHEDULER_CREATED_DELAY_MS = 60_000;

  @Describe(
    'Time in PROCESSING before the move to READY (VIRTUAL) or PLASTIC_READY (PLASTIC) (ms).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  SCHEDULER_PROCESSING_DELAY_MS = 120_000;

  @Describe('Requests moved per statement, one transaction each.')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10_000)
  SCHEDULER_BATCH_SIZE = 500;

  @Describe(
    'A third-party holder created in the user service for a request that was never stored ' +
      '(the answer was lost, the client never retried) is deleted by the hourly sweep once left ' +
      'this long (ms). Keep it far above `DOWNSTREAM_REQUEST_BUDGET_MS`: a retry within it ' +
      'finds the same user.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1_000)
  HOLDER_SWEEP_AFTER_MS = 3_600_000;

  @Describe('Delivery of the outbox to the operation service; `false`: messages wait in the table.')
  @Transform(toBoolean)
  @IsBoolean()
  OUTBOX_ENABLED = true;

  @Describe(
    'How often the outbox looks for messages due for (re)delivery (ms); new messages go out at ' +
      'once.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(50)
  OUTBOX_TICK_MS = 1_000;

  @Describe('Messages claimed per delivery round.')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000)
  OUTBOX_BATCH_SIZE = 50;

  @Describe(
    'How long a claimed message stays reserved for the replica that claimed it (ms); a crashed ' +
      "replica's messages are picked up after it.",
  )
  @Type(() => Number)
  @IsInt()
  @Min(1_000)
  OUTBOX_LEASE_MS = 30_000;

  @Describe(
    'First retry delay after a failed delivery (ms), doubled per attempt up to ' +
      '`OUTBOX_RETRY_MAX_MS`.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(10)
  OUTBOX_RETRY_BASE_MS = 500;

  @Describe('Longest retry delay of the outbox (ms).')
  @Type(() => Number)
  @IsInt()
  @Min(10)
  OUTBOX_RETRY_MAX_MS = 60_000;

  @Describe(
    'Attempts before a message is given up as DEAD: a dead letter, kept until an operator ' +
      'redelivers it (`outbox:redeliver`). 100 attempts at the default backoff span about an ' +
      'hour and a half of operation service outage.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  OUTBOX_MAX_ATTEMPTS = 100;

  @Describe(
    'How long DELIVERED and SUPERSEDED messages are kept before the hourly purge deletes them ' +
      '(hours).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  OUTBOX_RETENTION_HOURS = 168;

  @Describe('Messages deleted per purge statement, one short transaction each.')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100_000)
  OUTBOX_PURGE_BATCH_SIZE = 5_000;

  @Describe(
    'Delivery of webhooks (docs/webhooks.md); `false`: nothing is sent, events are still ' +
      'written and wait.',
  )
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOKS_ENABLED = true;

  @Describe(
    'How often the dispatcher looks for deliveries due for (re)delivery (ms); new events go out ' +
      'at once.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(50)
  WEBHOOK_TICK_MS = 1_000;

  @Describe(
    'Limit of one webhook attempt, from connecting to the first 256 characters of the answer (ms).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS = 5_000;

  @Describe('Attempts before a delivery is given up as DEAD (redelivered through the API).')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000)
  WEBHOOK_MAX_ATTEMPTS = 15;

  @Describe(
    'Backoff cap of the first webhook retry (ms); it doubles per attempt up to ' +
      '`WEBHOOK_RETRY_MAX_MS`, with full jitter (a random delay up to it).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_BASE_MS = 1_000;

  @Describe('Longest webhook backoff (ms).')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_MAX_MS = 3_600_000;

  @Describe('Webhook deliveries in flight per process, all subscriptions together.')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000)
  WEBHOOK_CONCURRENCY = 16;

  @Describe(
    'Webhook deliveries in flight per process for one subscription: what a slow receiver can ' +
      'hold.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000)
  WEBHOOK_SUBSCRIPTION_CONCURRENCY = 2;

  @Describe(
    'A webhook subscription whose attempts have all failed for this long (its run of failures ' +
      'began this many hours ago and its latest attempt failed too) is disabled until a PATCH ' +
      'with `enabled: true` (hours, 0-8760; 0: never).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(8_760)
  WEBHOOK_AUTO_DISABLE_HOURS = 24;

  @Describe(
    'How long DELIVERED webhook deliveries and their attempts are kept before the hourly purge ' +
      '(hours).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  WEBHOOK_RETENTION_HOURS = 168;

  @Describe(
    'Address ranges webhook targets may use although not globally reachable (private, ' +
      "loopback, link-local, the IANA special-purpose registries, this host's own addresses: " +
      'docs/webhooks.md "Safety"; comma list of CIDRs or addresses; tests: `127.0.0.0/8`). Keep ' +
      'it unset in production unless a receiver is internal (docs/security.md).',
    { default: 'unset: none' },
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @ValidateBy({
    name: 'isCidrList',
    validator: {
      validate: (value: unknown) => {
        try {
          return typeof value === 'string' && parseCidrList(value).length >= 0;
        } catch {
          return false;
        }
      },
      defaultMessage: () =>
        'WEBHOOK_ALLOWED_TARGET_CIDRS must be a comma list of CIDRs or IP addresses',
    },
  })
  WEBHOOK_ALLOWED_TARGET_CIDRS?: string;

  @Describe(
    'After a webhook secret rotation, how long the replaced secret keeps signing next to the ' +
      'new one, so receivers can switch without a gap (hours, 0-720; 0: the old one stops at once).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(720)
  WEBHOOK_SECRET_OVERLAP_HOURS = 24;

  @Describe(
    'The most webhook subscriptions that may exist (disabled ones count; one more is a 409): ' +
      'each one is a delivery row per event it wants, written in the statement of every change.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_MAX_SUBSCRIPTIONS = 100;
}

/** The X-secret in force: X_SECRET, or the development fallback (never reached in production). */
export function xSecretOf(env: CardIssueEnvironment): string {
  return env.X_SECRET ?? DEV_X_SECRET;
}
