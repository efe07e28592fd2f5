import { DynamicModule, ExecutionContext, Inject, Injectable, Provider } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerModule,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import {
  AUTH_SETTINGS,
  type AuthSettings,
  TokenVerifier,
  verifyBearerToken,
} from '@bank/shared/auth';
import { RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER } from '@bank/shared/openapi';
import { HealthController } from './health/health.controller';

/** The name of the one quota policy, in RateLimit-Policy and RateLimit. */
export const RATE_LIMIT_POLICY = 'default';

/**
 * `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers): the quota `q` per window `w` in
 * seconds; `w` is left out when the window is no whole number of seconds (the field takes an
 * integer, and a rounded one would misstate it).
 */
export function rateLimitPolicy(limit: number, windowMs: number): string {
  const window = windowMs % 1000 === 0 ? `;w=${windowMs / 1000}` : '';
  return `"${RATE_LIMIT_POLICY}";q=${limit}${window}`;
}

/** `RateLimit`: the requests `r` left and the seconds `t` until the quota is restored. */
export function rateLimitState(remaining: number, resetSeconds: number): string {
  return `"${RATE_LIMIT_POLICY}";r=${remaining};t=${resetSeconds}`;
}

/**
 * @nestjs/throttler's guard, keyed on the caller instead of the route: one budget per caller
 * across every route (throttler's own key is the controller, the handler and the address). The
 * caller is the subject of a valid bearer token (AUTH_MODE=jwt), else the client address
 * throttler takes from request.ip (which Fastify resolves with TRUST_PROXY; an IPv6 address by
 * its /64). A request whose token does not verify is counted against its address, so guessing
 * tokens is limited too. Every counted answer carries RateLimit-Policy and RateLimit (the IETF
 * draft's fields) in place of throttler's X-RateLimit-* headers; the 429 also Retry-After.
 */
@Injectable()
export class CallerThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storageService: ThrottlerStorage,
    reflector: Reflector,
    private readonly verifier: TokenVerifier,
    @Inject(AUTH_SETTINGS) private readonly auth: AuthSettings,
  ) {
    super(options, storageService, reflector);
  }

  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const subject = await this.subjectOf(request);
    return subject === undefined
      ? `address ${await super.getTracker(request)}`
      : `subject ${subject}`;
  }

  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    name: string,
  ): string {
    return `${name} ${tracker}`;
  }

  /** Throttler's own handleRequest, writing the IETF draft's fields instead of X-RateLimit-*. */
  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
    blockDuration,
    getTracker,
    generateKey,
  }: ThrottlerRequest): Promise<boolean> {
    const name = throttler.name ?? RATE_LIMIT_POLICY;
    const { req, res } = this.getRequestResponse(context);
    const tracker = await getTracker(req, context);
    const key = generateKey(context, tracker, name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    const reset = record.isBlocked ? record.timeToBlockExpire : record.timeToExpire;
    this.setResponseHeader(res, RATE_LIMIT_POLICY_HEADER, rateLimitPolicy(limit, ttl));
    this.setResponseHeader(
      res,
      RATE_LIMIT_HEADER,
      rateLimitState(record.isBlocked ? 0 : Math.max(0, limit - record.totalHits), reset),
    );
    if (record.isBlocked) {
      this.setResponseHeader(res, 'Retry-After', reset);
      await this.throwThrottlingException(context, { ...record, limit, ttl, key, tracker });
    }
    return true;
  }

  /** The subject of the request's valid bearer token (AUTH_MODE=jwt), else undefined. */
  private async subjectOf(request: Record<string, unknown>): Promise<string | undefined> {
    if (this.auth.mode !== 'jwt') return undefined;
    const verification = verifyBearerToken(
      request as unknown as Parameters<typeof verifyBearerToken>[0],
      this.verifier,
    );
    try {
      return (await verification)?.subject;
    } catch {
      // The guard of the operation answers it (401, or 503 when the keys are out of reach).
      return undefined;
    }
  }
}

/**
 * RATE_LIMIT requests per RATE_LIMIT_WINDOW_MS per caller (CallerThrottlerGuard), over every
 * route but the health check (probes must never be throttled); 429 in the service's error
 * shape. RATE_LIMIT=0 registers nothing.
 */
export function rateLimitModule(
  limit: number,
  windowMs: number,
): { imports: DynamicModule[]; providers: Provider[] } {
  if (!limit) return { imports: [], providers: [] };
  return {
    imports: [
      ThrottlerModule.forRoot({
        throttlers: [{ name: RATE_LIMIT_POLICY, ttl: windowMs, limit }],
        skipIf: (context: ExecutionContext) => context.getClass() === HealthController,
      }),
    ],
    providers: [{ provide: APP_GUARD, useClass: CallerThrottlerGuard }],
  };
}
