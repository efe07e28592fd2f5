import { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpService } from '@nestjs/axios';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AxiosError } from 'axios';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment, xSecretOf } from '../config/environment.config';
import { DownstreamService, GatewayOutcome, isTransient } from './gateway-result.model';

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
}

/**
 * HTTP to the downstream services, shared by the three gateways: base URL, X-secret, timeout,
 * retries with exponential backoff for idempotent calls. Never throws and never logs headers
 * or bodies (they carry the secret and personal data).
 */
@Injectable()
export class GatewayHttp {
  private readonly logger = new Logger('GatewayHttp');
  private readonly configured: Record<DownstreamService, string | undefined>;

  constructor(
    private readonly http: HttpService,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {
    this.configured = {
      'user service': env.USER_API_URL,
      'branch service': env.BRANCH_API_URL,
      'operation service': env.OPERATION_API_URL,
    };
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
    const base = this.baseUrl(service);
    if (!base) {
      return {
        kind: 'unavailable',
        reason: 'no base URL configured and the service is not listening',
      };
    }
    const attempts = request.idempotent ? 1 + this.env.DOWNSTREAM_RETRIES : 1;
    let outcome: GatewayOutcome = { kind: 'unavailable', reason: 'not attempted' };
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep(this.backoff(attempt - 1));
      outcome = await this.once(base, request);
      if (!isTransient(outcome)) break;
    }
    if (outcome.kind === 'answered' && outcome.status >= 500) {
      outcome = { kind: 'unavailable', reason: `answered ${outcome.status}` };
    }
    if (outcome.kind === 'unavailable') {
      this.logger.warn(
        `${service} unavailable: ${request.method} ${request.path} gave up after ` +
          `${attempts} attempt(s): ${outcome.reason}`,
      );
    }
    return outcome;
  }

  /** base * 2^(n-1) plus up to one base of jitter, so callers that failed together spread out. */
  private backoff(retry: number): number {
    const base = this.env.DOWNSTREAM_RETRY_DELAY_MS;
    return base * 2 ** (retry - 1) + Math.floor(Math.random() * (base + 1));
  }

  private async once(base: string, request: GatewayRequest): Promise<GatewayOutcome> {
    const timeout = this.env.DOWNSTREAM_TIMEOUT_MS;
    try {
      // The axios instance of HttpService (its agents and defaults) called directly: the
      // Observable wrapper cancels every finished call on unsubscribe, which builds a
      // CanceledError with its stack trace per call (docs/benchmarks.md).
      const response = await this.http.axiosRef.request<unknown>({
        method: request.method,
        url: `${base}${request.path}`,
        data: request.body,
        headers: {
          [X_SECRET_HEADER]: xSecretOf(this.env),
          Accept: 'application/json',
          ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        // Socket inactivity (timeout) and the whole exchange (signal) are both bounded.
        timeout,
        signal: AbortSignal.timeout(timeout),
        maxRedirects: 0,
        responseType: 'json',
        validateStatus: () => true,
      });
      return { kind: 'answered', status: response.status, body: response.data };
    } catch (error) {
      return { kind: 'unavailable', reason: describeFailure(error, timeout) };
    }
  }
}

/** A reason safe to log and show: the error code only, never the request config (it holds the secret). */
function describeFailure(error: unknown, timeoutMs: number): string {
  const code = error instanceof AxiosError ? error.code : (error as { code?: string })?.code;
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
