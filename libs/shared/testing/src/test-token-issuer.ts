import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  JWK,
  JWTPayload,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import type { TestEnvironment } from './test-service';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  publicPem: string;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    kid,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
    publicPem: await exportSPKI(publicKey),
  };
}

export interface SignOptions {
  /** Sign with a key the issuer does not publish, under the current key's kid. */
  stranger?: boolean;
  /** Seconds from now; negative for a token that has expired. Default 300. */
  expiresIn?: number;
  /** Leave `exp` out. */
  noExpiry?: boolean;
  /** Header kid; default the current key's. */
  kid?: string;
}

/**
 * A token issuer for tests: real ES256 keys (jose), its JWKS served by a node:http server on
 * a loopback port, and tokens signed like an identity provider signs them. `rotate()` replaces
 * the published key by a new one with a new kid, as a provider's key rotation does.
 */
export interface TestTokenIssuer {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** The current key's public part, PEM (SPKI) and JWK (for AUTH_PUBLIC_KEY). */
  publicPem(): string;
  publicJwk(): JWK;
  /** JWKS requests served so far. */
  fetches(): number;
  /** A signed token: iss, aud, iat, exp (5 minutes) by default; `claims` win. */
  sign(claims?: JWTPayload, options?: SignOptions): Promise<string>;
  /** The same claims as `sign`, as an unsecured JWT (`alg: none`). */
  unsigned(claims?: JWTPayload): string;
  /** HS256 with the public key's PEM as the HMAC secret (the algorithm confusion attack). */
  hmacWithPublicKey(claims?: JWTPayload): Promise<string>;
  /** Publishes a new key (new kid) in place of the current one. */
  rotate(): Promise<void>;
  /** Answer every JWKS request with this status instead of the set (undefined: the set). */
  failWith(status: number | undefined): void;
  /** The AUTH_* configuration of a service that trusts this issuer (JWKS refetch without cooldown). */
  env(extra?: TestEnvironment): TestEnvironment;
  close(): Promise<void>;
}

export async function startTestTokenIssuer(
  issuer = 'https://issuer.test/',
  audience = 'bank-backoffice',
): Promise<TestTokenIssuer> {
  let generation = 1;
  let current = await signingKey(`key-${generation}`);
  const stranger = await signingKey('stranger');
  let fetches = 0;
  let failure: number | undefined;
  const server: Server = createServer((_req, res) => {
    fetches++;
    if (failure !== undefined) {
      res.writeHead(failure).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: [current.publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const jwksUrl = `http://127.0.0.1:${port}/.well-known/jwks.json`;

  const claimsWith = (claims: JWTPayload, options: SignOptions = {}): JWTPayload => {
    const now = Math.floor(Date.now() / 1000);
    const base: JWTPayload = { iss: issuer, aud: audience, iat: now, sub: 'test-client' };
    if (!options.noExpiry) base.exp = now + (options.expiresIn ?? 300);
    return { ...base, ...claims };
  };

  return {
    issuer,
    audience,
    jwksUrl,
    publicPem: () => current.publicPem,
    publicJwk: () => current.publicJwk,
    fetches: () => fetches,
    sign: (claims = {}, options = {}) => {
      const key = options.stranger ? stranger : current;
      return new SignJWT(claimsWith(claims, options))
        .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? current.kid, typ: 'JWT' })
        .sign(key.privateKey);
    },
    unsigned: (claims = {}) => new UnsecuredJWT(claimsWith(claims)).encode(),
    hmacWithPublicKey: (claims = {}) =>
      new SignJWT(claimsWith(claims))
        .setProtectedHeader({ alg: 'HS256', kid: current.kid, typ: 'JWT' })
        .sign(new TextEncoder().encode(current.publicPem)),
    rotate: async () => {
      current = await signingKey(`key-${++generation}`);
    },
    failWith: (status) => (failure = status),
    env: (extra = {}) => ({
      AUTH_MODE: 'jwt',
      AUTH_ISSUER: issuer,
      AUTH_AUDIENCE: audience,
      AUTH_JWKS_URL: jwksUrl,
      AUTH_JWKS_COOLDOWN_MS: '0',
      ...extra,
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A token a service must refuse with 401, and the words of its error_description. */
export interface RejectedToken {
  name: string;
  token: () => Promise<string>;
  description: RegExp;
}

/**
 * The tokens every service behind AUTH_MODE=jwt must refuse (with the issuer's default
 * clock tolerance of 30 s): each carries the scope given, so only the defect is refused.
 * The issuer is read when a token is made (it starts in a beforeAll, after the cases are listed).
 */
export function rejectedTokens(issuerOf: () => TestTokenIssuer, scope: string): RejectedToken[] {
  const claims = { scope };
  const issuer = {
    sign: (...args: Parameters<TestTokenIssuer['sign']>) => issuerOf().sign(...args),
    unsigned: (...args: Parameters<TestTokenIssuer['unsigned']>) => issuerOf().unsigned(...args),
    hmacWithPublicKey: (...args: Parameters<TestTokenIssuer['hmacWithPublicKey']>) =>
      issuerOf().hmacWithPublicKey(...args),
    get issuer() {
      return issuerOf().issuer;
    },
    get audience() {
      return issuerOf().audience;
    },
  };
  return [
    {
      name: 'expired beyond the clock tolerance (40 s ago)',
      token: () => issuer.sign(claims, { expiresIn: -40 }),
      description: /expired/,
    },
    {
      name: 'not valid for another minute (nbf)',
      token: () => issuer.sign({ ...claims, nbf: Math.floor(Date.now() / 1000) + 60 }),
      description: /not valid yet/,
    },
    {
      name: 'without exp',
      token: () => issuer.sign(claims, { noExpiry: true }),
      description: /required claim/,
    },
    {
      name: 'from another issuer',
      token: () => issuer.sign({ ...claims, iss: 'https://evil.test/' }),
      description: /another issuer/,
    },
    {
      name: 'for another audience',
      token: () => issuer.sign({ ...claims, aud: 'another-api' }),
      description: /another audience/,
    },
    {
      name: "signed by a key that is not the issuer's (same kid)",
      token: () => issuer.sign(claims, { stranger: true }),
      description: /signature/,
    },
    {
      name: 'with a kid the issuer does not publish',
      token: () => issuer.sign(claims, { kid: 'unknown-kid' }),
      description: /signature/,
    },
    {
      name: 'with alg none (unsigned)',
      token: () => Promise.resolve(issuer.unsigned(claims)),
      description: /algorithm/,
    },
    {
      name: 'signed HS256 with the public key as secret',
      token: () => issuer.hmacWithPublicKey(claims),
      description: /algorithm/,
    },
    {
      name: 'with a tampered payload',
      token: async () => {
        const [header, , signature] = (await issuer.sign(claims)).split('.');
        const payload = Buffer.from(
          JSON.stringify({ iss: issuer.issuer, aud: issuer.audience, exp: 9_999_999_999, scope }),
        ).toString('base64url');
        return `${header}.${payload}.${signature}`;
      },
      description: /signature/,
    },
    {
      name: 'that is not a JWT',
      token: () => Promise.resolve('not-a-jwt'),
      description: /well-formed/,
    },
  ];
}
