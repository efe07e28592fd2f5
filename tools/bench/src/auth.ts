import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { parsePublicKey, TokenVerifier } from '@bank/shared/auth';

const ISSUER = 'https://issuer.bench/';
const AUDIENCE = 'bank-backoffice';

/**
 * A token issuer for the bearer JWT scenario: an RS256 key (the default of most identity
 * providers) and one token with the card-issue scopes, reused by every request as a client
 * reuses its access token. The service gets the public key as AUTH_PUBLIC_KEY: it runs with
 * NODE_ENV=production, where a JWKS must be https; verification costs the same either way once
 * the JWKS is cached.
 */
export async function benchIssuer(): Promise<{
  env: Record<string, string>;
  authorization: string;
}> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const token = await new SignJWT({ scope: 'card-issue:read card-issue:write card-issue:status' })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('bench')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey);
  return {
    env: {
      AUTH_MODE: 'jwt',
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      AUTH_PUBLIC_KEY: await exportSPKI(publicKey),
    },
    authorization: `Bearer ${token}`,
  };
}

/**
 * The CPU time of verifying one token, in-process with the services' own TokenVerifier (one
 * configured key): the part of the bearer JWT's cost that does not depend on the HTTP stack,
 * steadier than the difference of two load runs on a shared machine.
 */
export async function verificationMicros(alg: 'RS256' | 'ES256', count = 5_000): Promise<number> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const token = await new SignJWT({ scope: 'card-issue:read' })
    .setProtectedHeader({ alg, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('2h')
    .sign(privateKey);
  const verifier = new TokenVerifier({
    mode: 'jwt',
    realm: 'bench',
    production: true,
    jwt: {
      issuer: ISSUER,
      audience: [AUDIENCE],
      algorithms: [alg],
      clockToleranceSeconds: 30,
      keys: { publicKey: parsePublicKey(await exportSPKI(publicKey)) },
    },
  });
  for (let i = 0; i < 500; i++) await verifier.verify(token);
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await verifier.verify(token);
  return Number(process.hrtime.bigint() - started) / 1_000 / count;
}
