import { AsyncLocalStorage } from 'node:async_hooks';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AxiosError } from 'axios';
import { ENVIRONMENT } from '@bank/shared/nest';
import { RateLimitedLog } from '@bank/shared/logging';
import { correlationHeaders } from '@bank/shared/tracing';
import { CardIssueEnvironment, xSecretOf } from '../config/environment.config';
import { CircuitBreaker } from './circuit-breaker';
import { DownstreamMetrics } from './downstream.metrics';
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

/** Monotonic milliseconds: deadlines and the breakers' cool-downs do not jump with the wall clock. */
const monotonicNow = (): number => performance.now();

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
 * HTTP to the downstream services, shared by the three gateways: base URL, X-secret, X-Request-Id, timeout,
 * retries with exponential backoff (or the service's Retry-After) for idempotent calls, all
 * within the request's budget, and a circuit breaker per service. Never throws and never logs
 * headers or bodies (they carry the secret and personal data). A dead service fails every
 * request: its failures are logged once per kind per ERROR_LOG_INTERVAL_MS, with a count.
 */
@Injectable()
export class GatewayHttp implements OnApplicationShutdown {
  private readonly logger = new Logger('GatewayHttp');
  private readonly failures: RateLimitedLog;
  private readonly configured: Record<DownstreamService, string | undefined>;
  private readonly breakers: Record<DownstreamService, CircuitBreaker>;

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
    const breaker = () =>
      new CircuitBreaker({
        failureThreshold: env.DOWNSTREAM_BREAKER_FAILURES,
        cooldownMs: env.DOWNSTREAM_BREAKER_OPEN_MS,
        now: monotonicNow,
      });
    this.breakers = {
      'user service': breaker(),
      'branch service': breaker(),
      'operation service': breaker(),
    };
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
    const breaker = this.breakers[service];
    const maxAttempts = request.idempotent ? 1 + this.env.DOWNSTREAM_RETRIES : 1;
    let outcome: GatewayOutcome = { kind: 'unavailable', reason: 'not attempted' };
    let attempts = 0;
    for (;;) {
      const remaining = Math.floor(deadline - monotonicNow());
      if (remaining <= 0) {
        if (attempts === 0) outcome = { kind: 'unavailable', reason: 'request budget spent' };
        break;
      }
      const decision = breaker.decide();
      if (!decision.allowed) {
        outcome = {
          kind: 'unavailable',
          reason: 'circuit open after repeated failures',
          retryAfterMs: decision.retryAfterMs,
        };
        break;
      }
      attempts++;
      outcome = await this.once(base, request, Math.min(this.env.DOWNSTREAM_TIMEOUT_MS, remaining));
      if (isTransient(outcome)) breaker.failed();
      else breaker.succeeded();
      if (!isTransient(outcome) || attempts >= maxAttempts) break;
      // The service's Retry-After is honoured when it fits the budget; otherwise fail fast and
      // pass it on to our caller.
      const wait = Math.max(this.backoff(attempts), outcome.retryAfterMs ?? 0);
      if (monotonicNow() + wait >= deadline) break;
      await sleep(wait);
    }
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

  /** base * 2^(n-1) plus up to one base of jitter, so callers that failed together spread out. */
  private backoff(retry: number): number {
    const base = this.env.DOWNSTREAM_RETRY_DELAY_MS;
    return base * 2 ** (retry - 1) + Math.floor(Math.random() * (base + 1));
  }

  private async once(
    base: string,
    request: GatewayRequest,
    timeout: number,
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
        // Socket inactivity (timeout) and the whole exchange (signal) are both bounded.
        timeout,
        signal: AbortSignal.timeout(timeout),
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
      return { kind: 'unavailable', reason: describeFailure(error, timeout) };
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
