import { DomainError } from '@bank/shared/errors';

/** A quoted-string of a WWW-Authenticate parameter (RFC 9110 5.6.4). */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** No bearer token (no Authorization header, or another scheme): 401 with a bare challenge. */
export class MissingBearerTokenError extends DomainError {
  readonly code = 'AUTH_TOKEN_MISSING';
  readonly httpStatus = 401;
  override readonly wwwAuthenticate: string;

  constructor(realm: string) {
    super('A bearer token is required (Authorization: Bearer <token>)');
    this.wwwAuthenticate = `Bearer realm=${quoted(realm)}`;
  }
}

/**
 * Why a token was refused, as told to the caller (RFC 6750 error_description): the category
 * only, never the token's claims or the expected values.
 */
export type InvalidTokenReason =
  | 'malformed'
  | 'signature'
  | 'algorithm'
  | 'expired'
  | 'not yet valid'
  | 'issuer'
  | 'audience'
  | 'claims';

const REASON_TEXT: Record<InvalidTokenReason, string> = {
  malformed: 'the token is not a well-formed signed JWT',
  signature: 'the signature does not verify with any key of the issuer',
  algorithm: 'the signing algorithm is not accepted',
  expired: 'the token has expired',
  'not yet valid': 'the token is not valid yet',
  issuer: 'the token is from another issuer',
  audience: 'the token is for another audience',
  claims: 'the token lacks a required claim or has an invalid one',
};

/** A token that does not verify: 401 with error="invalid_token". */
export class InvalidBearerTokenError extends DomainError {
  readonly code = 'AUTH_TOKEN_INVALID';
  readonly httpStatus = 401;
  override readonly wwwAuthenticate: string;

  constructor(
    realm: string,
    readonly reason: InvalidTokenReason,
  ) {
    super(`The bearer token is invalid: ${REASON_TEXT[reason]}`);
    this.wwwAuthenticate =
      `Bearer realm=${quoted(realm)}, error="invalid_token", ` +
      `error_description=${quoted(REASON_TEXT[reason])}`;
  }
}

/** A valid token without the operation's scope: 403 with error="insufficient_scope". */
export class InsufficientScopeError extends DomainError {
  readonly code = 'AUTH_SCOPE_MISSING';
  readonly httpStatus = 403;
  override readonly wwwAuthenticate: string;

  constructor(realm: string, required: readonly string[]) {
    super(`The bearer token lacks the scope this operation requires: ${required.join(' ')}`);
    this.wwwAuthenticate =
      `Bearer realm=${quoted(realm)}, error="insufficient_scope", ` +
      `scope=${quoted(required.join(' '))}`;
  }
}

/**
 * The issuer's key set could not be fetched (down, slow, not a JWKS): the token can be neither
 * accepted nor refused, so 503 with Retry-After rather than a 401 the client cannot fix.
 */
export class AuthKeysUnavailableError extends DomainError {
  readonly code = 'AUTH_KEYS_UNAVAILABLE';
  readonly httpStatus = 503;

  constructor() {
    super("The token issuer's key set is unavailable; retry later");
  }
}
