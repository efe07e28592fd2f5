import type { KeyObject } from 'node:crypto';

/** `none`: the API is open; `jwt`: every protected operation needs a bearer JWT with its scope. */
export type AuthMode = 'none' | 'jwt';

/** Where the keys that verify a token's signature come from. */
export type VerificationKeys =
  | {
      /** The issuer's JSON Web Key Set, fetched and cached (keys chosen by `kid`). */
      jwksUrl: string;
      /** A token with an unknown `kid` refetches the set at most once per this time. */
      cooldownMs: number;
      /** The set is refetched when older than this. */
      cacheMaxAgeMs: number;
      /** A fetch taking longer fails (the request is answered 503). */
      timeoutMs: number;
    }
  | {
      /** One configured public key (from a PEM or a JWK). */
      publicKey: KeyObject;
    };

export interface JwtSettings {
  /** The `iss` every token must carry. */
  issuer: string;
  /** Accepted `aud` values; a token must name at least one. */
  audience: string[];
  keys: VerificationKeys;
  /** Accepted `alg` values (asymmetric only: the services hold no signing secret). */
  algorithms: string[];
  /** Tolerated clock difference with the issuer for `exp` and `nbf`, in seconds. */
  clockToleranceSeconds: number;
}

export type AuthSettings =
  | { mode: 'none'; realm: string; production: boolean }
  | { mode: 'jwt'; realm: string; production: boolean; jwt: JwtSettings };

/** Injection token of the service's AuthSettings. */
export const AUTH_SETTINGS = Symbol('AUTH_SETTINGS');

/**
 * The asymmetric JWS algorithms a token may be signed with. HMAC (`HS*`) is left out on
 * purpose, so a public key can never be used as a shared secret (algorithm confusion), and
 * `none` is never accepted.
 */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
