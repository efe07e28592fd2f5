import { AsyncLocalStorage } from 'node:async_hooks';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AxiosError } from 'axios';
import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitBreakerPolicy,
  CircuitState,
  DelegateBackoff,
  ExponentialBackoff,
  halfJitterGenerator,
  handleWhenResult,
  IBackoff,
  IPolicy,
  noop,
  retry,
  timeout,
  TimeoutStrategy,
  wrap,
} from 'cockatiel';
import { ENVIRONMENT } from '@bank/shared/nest';
import { RateLimitedLog } from '@bank/shared/logging';
import { correlationHeaders } from '@bank/shared/tracing';
import { CardIssueEnvironment, xSecretOf } from '../config/environment.config';
import { DownstreamMetrics } from './downstream.metrics';
import { SlidingWindowBreaker } from './sliding-window-breaker';
import {
  DownstreamService,
  GatewayOutcome,
  isTransient,
  parseRetryAfter,
} from './gateway-result.model';

/** Header the downstream services authenticate callers with (spec part 5). */
const X_SECRET_HEADER = 'X-secret';

/** Where each downstream service is mounted when it is served by this deployment itself. */
const OWN_MOUNT: Record<DownstreamService, string> = {
  'user service': '/user-api',
  'branch service': '/branch-api',
  'operation service': '/operation-api',
};

export interface GatewayRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the service's base URL, e.g. /api/v1/users/X1A2B3 */
  path: string;
  body?: unknown;
  /**
   * True only when repeating the call cannot change the outcome (GET, DELETE, a PATCH carrying
   * a sequence, a create keyed by the caller's own id). Only those are retried.
   */
  idempotent: boolean;
  /** Further request headers (e.g. an Idempotency-Key the service honours). */
  headers?: Record<string, string>;
}

/** Monotonic milliseconds: the request budgets do not jump with the wall clock. */
const monotonicNow = (): number => performance.now();

/** The reason of a call an open breaker refused (its metrics outcome is circuit_open). */
const CIRCUIT_OPEN = 'circuit open after repeated failures';

/** An outcome as the policies see it: cockatiel's handlers take unknown results. */
const transient = (result: unknown): boolean => isTransient(result as GatewayOutcome);

/**
 * The breaker of one downstream service (cockatiel's, on its wall clock), and when it last
 * opened, for the Retry-After of the calls it refuses.
 */
class ServiceBreaker {
  private openedAt = 0;

  constructor(
    readonly policy: CircuitBreakerPolicy,
    private readonly openMs: number,
  ) {
    policy.onBreak(() => (this.openedAt = Date.now()));
  }

  /** A probe is out: cockatiel would hold further calls until it ends. */
  get probing(): boolean {
    return this.policy.state === CircuitState.HalfOpen;
  }

  /** Milliseconds until an open breaker lets a probe through. */
  get coolDownLeft(): number {
    return Math.max(0, this.openedAt + this.openMs - Date.now());
  }
}

/** The deadline (monotonic ms) of the incoming request whose downstream calls run in this scope. */
const requestDeadline = new AsyncLocalStorage<number>();

/**
 * One time budget (DOWNSTREAM_REQUEST_BUDGET_MS) for every downstream call an incoming request
 * makes, attempts, backoffs and Retry-After waits included. Calls outside `run` (the outbox)
 * get a budget of their own per call.
 */
@Injectable()
export class DownstreamBudget {
  constructor(@Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    return requestDeadline.run(monotonicNow() + this.env.DOWNSTREAM_REQUEST_BUDGET_MS, work);
  }
}

/**
 * HTTP to the downstream services, shared by the three gateways: base URL, X-secret,
 * X-Request-Id, and cockatiel's policies around each call, `wrap(retry, circuit breaker,
 * timeout)`: retries with exponential backoff (or the service's Retry-After) for idempotent
 * calls, a failure-rate circuit breaker per service that counts every attempt, and a timeout
 * per attempt, all within the request's budget. Never throws and never logs headers or bodies
 * (they carry the secret and personal data). A dead service fails every request: its failures
 * are logged once per kind per ERROR_LOG_INTERVAL_MS, with a count.
 */
@Injectable()
export class GatewayHttp implements OnApplicationShutdown {
  private readonly logger = new Logger('GatewayHttp');
  private readonly failures: RateLimitedLog;
  private readonly configured: Record<DownstreamService, string | undefined>;
  /** Per service: its breaker (none with DOWNSTREAM_BREAKER_FAILURES=0, none in-process). */
  private readonly breakers: Record<DownstreamService, ServiceBreaker | null>;
  /** Per service: what each attempt goes through, the breaker and then the timeout. */
  private readonly attemptPolicies: Record<DownstreamService, IPolicy>;
  /** The n-th retry waits between half and all of DOWNSTREAM_RETRY_DELAY_MS x 2^(n-1). */
  private readonly backoff: ExponentialBackoff<number>;

  constructor(
    private readonly http: HttpService,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
    private readonly metrics: DownstreamMetrics,
  ) {
    this.configured = {
      'user service': env.USER_API_URL,
      'branch service': env.BRANCH_API_URL,
      'operation service': env.OPERATION_API_URL,
    };
    // No breaker in front of a reference service this process serves itself (its URL unset):
    // its failures are this service's own database failing, already answered as such, and a
    // breaker opened by a database outage would refuse requests after the database is back.
    const breaker = (service: DownstreamService): ServiceBreaker | null =>
      env.DOWNSTREAM_BREAKER_FAILURES === 0 || this.configured[service] === undefined
        ? null
        : new ServiceBreaker(
            circuitBreaker(handleWhenResult(transient), {
              halfOpenAfter: env.DOWNSTREAM_BREAKER_OPEN_MS,
              breaker: new SlidingWindowBreaker({
                threshold: env.DOWNSTREAM_BREAKER_FAILURE_RATE,
                durationMs: env.DOWNSTREAM_BREAKER_WINDOW_MS,
                minimumCalls: env.DOWNSTREAM_BREAKER_FAILURES,
              }),
            }),
            env.DOWNSTREAM_BREAKER_OPEN_MS,
          );
    this.breakers = {
      'user service': breaker('user service'),
      'branch service': breaker('branch service'),
      'operation service': breaker('operation service'),
    };
    // Cooperative: the attempt gets the signal and ends its request itself, with an outcome.
    // Not aborted on return: an abort after the answer would build a CanceledError per call.
    const attemptTimeout = timeout(env.DOWNSTREAM_TIMEOUT_MS, {
      strategy: TimeoutStrategy.Cooperative,
      abortOnReturn: false,
    });
    const attempt = (service: DownstreamService): IPolicy =>
      wrap(this.breakers[service]?.policy ?? noop, attemptTimeout);
    this.attemptPolicies = {
      'user service': attempt('user service'),
      'branch service': attempt('branch service'),
      'operation service': attempt('operation service'),
    };
    this.backoff = new ExponentialBackoff({
      initialDelay: env.DOWNSTREAM_RETRY_DELAY_MS,
      maxDelay: env.DOWNSTREAM_REQUEST_BUDGET_MS,
      generator: halfJitterGenerator,
    });
    this.failures = new RateLimitedLog(env.ERROR_LOG_INTERVAL_MS, ({ kind, detail, suppressed }) =>
      this.logger.warn(
        suppressed
          ? `${kind}: ${suppressed} more failed calls since the last line, the latest: ${String(detail.call)}`
          : `${kind}: ${String(detail.call)}`,
      ),
    );
  }

  /** Writes the failure counts still pending. */
  onApplicationShutdown(): void {
    this.failures.flush();
  }

  /** This deployment's own address, once it listens (then it does not change). */
  private ownAddress: string | null = null;

  /**
   * Base URL of a service: the configured one, or this deployment's own mount point at the
   * address it actually listens on (resolved once it listens, so port 0 in tests works too).
   */
  baseUrl(service: DownstreamService): string | null {
    const configured = this.configured[service];
    if (configured) return configured;
    const own = this.ownAddress ?? (this.ownAddress = this.listeningAddress());
    return own && `${own}${this.env.BASE_PATH ?? ''}${OWN_MOUNT[service]}`;
  }

  private listeningAddress(): string | null {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as
      { address(): AddressInfo | string | null } | undefined;
    const address = server?.address();
    if (!address || typeof address === 'string') return null;
    const host =
      address.address === '0.0.0.0' || address.address === '::'
        ? '127.0.0.1'
        : address.address.includes(':')
          ? `[${address.address}]`
          : address.address;
    return `http://${host}:${address.port}`;
  }

  async send(service: DownstreamService, request: GatewayRequest): Promise<GatewayOutcome> {
    const started = monotonicNow();
    const base = this.baseUrl(service);
    if (!base) {
      return {
        kind: 'unavailable',
        reason: 'no base URL configured and the service is not listening',
      };
    }
    const deadline =
      requestDeadline.getStore() ?? monotonicNow() + this.env.DOWNSTREAM_REQUEST_BUDGET_MS;
    let attempts = 0;
    let outcome = await this.attempted(service, request, deadline, async (signal) => {
      attempts++;
      const timeoutMs = Math.min(
        this.env.DOWNSTREAM_TIMEOUT_MS,
        Math.floor(deadline - monotonicNow()),
      );
      return this.once(base, request, signal, Math.max(0, timeoutMs));
    });
    this.metrics.record(service, outcome, (monotonicNow() - started) / 1000, attempts);
    if (outcome.kind === 'answered' && outcome.status >= 500) {
      outcome = {
        kind: 'unavailable',
        reason: `answered ${outcome.status}`,
        ...(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs }),
      };
    }
    if (outcome.kind === 'unavailable') {
      // One kind per service (a bounded set); the line carries the latest call's reason.
      this.failures.report(`${service} unavailable`, {
        call:
          `${request.method} ${request.path} gave up after ${attempts} attempt(s): ` +
          outcome.reason,
      });
    }
    return outcome;
  }

  /**
   * The attempts of one call through the service's policies, within the budget: the budget's
   * end aborts the attempt in flight (the timeout policy's signal follows it) and stops the
   * retries. An open breaker refuses the call with its cool-down left; while its probe is out,
   * at once (cockatiel would hold the call until the probe ends, whatever its budget).
   */
  private async attempted(
    service: DownstreamService,
    request: GatewayRequest,
    deadline: number,
    attempt: (signal: AbortSignal) => Promise<GatewayOutcome>,
  ): Promise<GatewayOutcome> {
    const remaining = Math.floor(deadline - monotonicNow());
    if (remaining <= 0) return { kind: 'unavailable', reason: 'request budget spent' };
    const breaker = this.breakers[service];
    if (breaker?.probing) return { kind: 'unavailable', reason: CIRCUIT_OPEN, retryAfterMs: 0 };
    const policy = wrap(this.retries(request, deadline, breaker), this.attemptPolicies[service]);
    try {
      return await policy.execute(({ signal }) => attempt(signal), AbortSignal.timeout(remaining));
    } catch (error) {
      if (!(error instanceof BrokenCircuitError)) throw error;
      return {
        kind: 'unavailable',
        reason: CIRCUIT_OPEN,
        retryAfterMs: breaker?.coolDownLeft ?? 0,
      };
    }
  }

  /**
   * The retry policy of one call: DOWNSTREAM_RETRIES further attempts after a transient outcome,
   * for an idempotent call only. The wait is the larger of the backoff and the service's
   * Retry-After; a retry whose wait would end past the deadline is not made (the call gives up
   * at once and passes the Retry-After on), nor one that a probe of the breaker would hold.
   */
  private retries(
    request: GatewayRequest,
    deadline: number,
    breaker: ServiceBreaker | null,
  ): IPolicy {
    if (!request.idempotent || this.env.DOWNSTREAM_RETRIES === 0) return noop;
    let backoff: IBackoff<unknown> | undefined;
    let wait = 0;
    const worthAnother = (result: unknown): boolean => {
      const outcome = result as GatewayOutcome;
      if (!isTransient(outcome) || breaker?.probing) return false;
      backoff = backoff ? backoff.next(undefined) : this.backoff.next();
      wait = Math.max(backoff.duration, outcome.retryAfterMs ?? 0);
      return monotonicNow() + wait < deadline;
    };
    return retry(handleWhenResult(worthAnother), {
      maxAttempts: this.env.DOWNSTREAM_RETRIES,
      backoff: new DelegateBackoff(() => wait),
    });
  }

  private async once(
    base: string,
    request: GatewayRequest,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<GatewayOutcome> {
    // The request id and, when tracing runs, the W3C traceparent go with every call (the HTTP
    // instrumentation's client span's), so the downstream service's logs and spans join ours.
    const url = `${base}${request.path}`;
    try {
      // The axios instance of HttpService (its agents and defaults) called directly: the
      // Observable wrapper cancels every finished call on unsubscribe, which builds a
      // CanceledError with its stack trace per call (docs/benchmarks.md).
      const response = await this.http.axiosRef.request<unknown>({
        method: request.method,
        url,
        data: request.body,
        headers: {
          [X_SECRET_HEADER]: xSecretOf(this.env),
          Accept: 'application/json',
          ...correlationHeaders(),
          ...request.headers,
          ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        // The timeout policy's signal: the attempt's timeout, or the end of the budget.
        signal,
        maxRedirects: 0,
        responseType: 'json',
        validateStatus: () => true,
      });
      const retryAfterMs =
        response.status === 503 || response.status === 429
          ? parseRetryAfter(response.headers['retry-after'], Date.now())
          : undefined;
      return {
        kind: 'answered',
        status: response.status,
        body: response.data,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    } catch (error) {
      return { kind: 'unavailable', reason: describeFailure(error, timeoutMs) };
    }
  }
}

/** The error code of a failed call (ECONNREFUSED, ERR_CANCELED, ...), if it has one. */
function errorCode(error: unknown): string | undefined {
  return error instanceof AxiosError ? error.code : (error as { code?: string })?.code;
}

/** A reason safe to log and show: the error code only, never the request config (it holds the secret). */
function describeFailure(error: unknown, timeoutMs: number): string {
  const code = errorCode(error);
  switch (code) {
    case 'ECONNABORTED':
    case 'ETIMEDOUT':
    case 'ERR_CANCELED':
      return `no answer within ${timeoutMs} ms`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    default:
      return code ? `network error ${code}` : 'network error';
  }
}
