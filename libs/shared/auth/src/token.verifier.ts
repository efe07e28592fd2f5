import { KeyObject } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createRemoteJWKSet, errors, JWTPayload, JWTVerifyGetKey, jwtVerify } from 'jose';
import {
  AuthKeysUnavailableError,
  InvalidBearerTokenError,
  InvalidTokenReason,
} from './auth.errors';
import { AUTH_SETTINGS, AuthSettings, JwtSettings } from './auth.settings';

/** What a verified token grants. */
export interface VerifiedToken {
  subject?: string;
  scopes: ReadonlySet<string>;
}

/** Failures of the key set's fetch are logged at most once per this interval. */
const KEYS_FAILURE_LOG_INTERVAL_MS = 10_000;

/** Thrown by the key resolver when the key set cannot be fetched (jose passes it through). */
class KeySetFetchFailed extends Error {}

/**
 * Errors of choosing a key from a fetched set: the token names a key the issuer does not
 * have (or several match). Every other failure of the remote set is its fetch failing.
 */
const KEY_SELECTION_CODES = new Set([
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
  errors.JOSENotSupported.code,
  errors.JWKInvalid.code,
]);

/**
 * Verifies bearer JWTs with jose: signature (JWKS chosen by kid, or the configured key),
 * algorithm in the allowed list, `iss`, `aud`, `exp` (required) and `nbf` within the clock
 * tolerance. Scopes come from `scope` (space-separated, RFC 9068) or `scp` (list or string).
 */
@Injectable()
export class TokenVerifier {
  private readonly logger = new Logger('Auth');
  private readonly jwt?: JwtSettings;
  private readonly key?: KeyObject | JWTVerifyGetKey;
  private lastKeysFailureLog = -Infinity;

  constructor(@Inject(AUTH_SETTINGS) private readonly settings: AuthSettings) {
    if (settings.mode !== 'jwt') return;
    this.jwt = settings.jwt;
    const keys = settings.jwt.keys;
    this.key = 'publicKey' in keys ? keys.publicKey : this.remoteKeySet(keys);
  }

  async verify(token: string): Promise<VerifiedToken> {
    const { jwt, key } = this;
    if (!jwt || !key) throw new Error('TokenVerifier used with AUTH_MODE=none');
    let payload: JWTPayload;
    try {
      // Two overloads (a key, or a key resolver): the union needs its branch spelled out.
      const options = {
        issuer: jwt.issuer,
        audience: jwt.audience,
        algorithms: jwt.algorithms,
        clockTolerance: jwt.clockToleranceSeconds,
        requiredClaims: ['exp'],
      };
      ({ payload } =
        key instanceof KeyObject
          ? await jwtVerify(token, key, options)
          : await jwtVerify(token, key, options));
    } catch (error) {
      if (error instanceof KeySetFetchFailed) throw new AuthKeysUnavailableError();
      throw new InvalidBearerTokenError(this.settings.realm, reasonOf(error));
    }
    return { subject: payload.sub, scopes: scopesOf(payload) };
  }

  private remoteKeySet(keys: Extract<JwtSettings['keys'], { jwksUrl: string }>): JWTVerifyGetKey {
    const remote = createRemoteJWKSet(new URL(keys.jwksUrl), {
      cooldownDuration: keys.cooldownMs,
      cacheMaxAge: keys.cacheMaxAgeMs,
      timeoutDuration: keys.timeoutMs,
    });
    return async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && KEY_SELECTION_CODES.has(code)) throw error;
        this.logKeysFailure(keys.jwksUrl, error);
        throw new KeySetFetchFailed();
      }
    };
  }

  private logKeysFailure(url: string, error: unknown): void {
    const now = Date.now();
    if (now - this.lastKeysFailureLog < KEYS_FAILURE_LOG_INTERVAL_MS) return;
    this.lastKeysFailureLog = now;
    const detail = error instanceof Error ? error.message : String(error);
    this.logger.error(`The JWKS at ${url} cannot be fetched: ${detail}`);
  }
}

function reasonOf(error: unknown): InvalidTokenReason {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'issuer';
    if (error.claim === 'aud') return 'audience';
    if (error.claim === 'nbf') return 'not yet valid';
    return 'claims';
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'algorithm';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'malformed';
  // A signature that fails, a kid the issuer does not have, a key of another type than the
  // token's alg (jose: TypeError): the token was not signed by the issuer's key.
  return 'signature';
}

function scopesOf(payload: JWTPayload): ReadonlySet<string> {
  const words = (value: unknown): string[] =>
    typeof value === 'string'
      ? value.split(' ').filter(Boolean)
      : Array.isArray(value)
        ? value.filter((item): item is string => typeof item === 'string')
        : [];
  return new Set([...words(payload.scope), ...words(payload.scp)]);
}
