import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InsufficientScopeError, MissingBearerTokenError } from './auth.errors';
import { AUTH_SETTINGS, AuthSettings } from './auth.settings';
import { TokenVerifier, VerifiedToken } from './token.verifier';

/** Metadata key of the scopes an operation requires (set by RequireScopes). */
export const REQUIRED_SCOPES = 'auth:required-scopes';

/** `Bearer <token>` (scheme case-insensitive, RFC 6750 2.1); anything else is no token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

interface HttpRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The verified token of the request, for handlers that need the caller. */
  auth?: VerifiedToken;
}

/** The verification of each request's bearer token (see verifyBearerToken). */
const verifications = new WeakMap<object, Promise<VerifiedToken>>();

/**
 * The request's bearer token, verified once per request whoever asks first (the rate limit
 * keys on its subject before the guard checks its scopes); undefined without a bearer token.
 */
export function verifyBearerToken(
  request: HttpRequest,
  verifier: TokenVerifier,
): Promise<VerifiedToken> | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? BEARER.exec(header) : null;
  if (!match) return undefined;
  let verification = verifications.get(request);
  if (!verification) {
    verification = verifier.verify(match[1]);
    verifications.set(request, verification);
  }
  return verification;
}

/**
 * With AUTH_MODE=jwt: 401 without a valid bearer token, 403 when the token lacks a scope the
 * operation requires. With AUTH_MODE=none every request passes. Guards run before pipes, so an
 * unauthenticated request is refused before its body or parameters are validated.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: TokenVerifier,
    @Inject(AUTH_SETTINGS) private readonly settings: AuthSettings,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.settings.mode === 'none') return true;
    const required =
      this.reflector.get<string[] | undefined>(REQUIRED_SCOPES, context.getHandler()) ?? [];
    const request = context.switchToHttp().getRequest<HttpRequest>();
    const verification = verifyBearerToken(request, this.verifier);
    if (!verification) throw new MissingBearerTokenError(this.settings.realm);
    const token = await verification;
    if (!required.every((scope) => token.scopes.has(scope))) {
      throw new InsufficientScopeError(this.settings.realm, required);
    }
    request.auth = token;
    return true;
  }
}
