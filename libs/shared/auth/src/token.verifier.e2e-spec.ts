import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { exportJWK, exportSPKI, generateKeyPair, JWK, SignJWT } from 'jose';
import { AuthKeysUnavailableError, InvalidBearerTokenError } from './auth.errors';
import { AuthSettings, JwtSettings } from './auth.settings';
import { parsePublicKey } from './public-key';
import { TokenVerifier } from './token.verifier';

const ISSUER = 'https://issuer.test/';
const AUDIENCE = 'api';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

/** A JWKS endpoint on a loopback port whose answer the test controls. */
async function jwksServer(): Promise<{
  url: string;
  keys: JWK[];
  fetches: () => number;
  answer: (status: number | 'hang') => void;
  close: () => Promise<void>;
}> {
  const keys: JWK[] = [];
  let fetches = 0;
  let status: number | 'hang' = 200;
  const server: Server = createServer((_req, res) => {
    fetches++;
    if (status === 'hang') return;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks`,
    keys,
    fetches: () => fetches,
    answer: (next) => (status = next),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function jwtSettings(keys: JwtSettings['keys'], extra: Partial<JwtSettings> = {}): AuthSettings {
  return {
    mode: 'jwt',
    realm: 'test',
    production: false,
    jwt: {
      issuer: ISSUER,
      audience: [AUDIENCE, 'other-api'],
      algorithms: ['ES256', 'RS256'],
      clockToleranceSeconds: 30,
      keys,
      ...extra,
    },
  };
}

const sign = (pair: KeyPair, kid: string, claims: object = {}, alg = 'ES256') =>
  new SignJWT({ scope: 'a b', ...claims })
    .setProtectedHeader({ alg, kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .sign(pair.privateKey);

describe('TokenVerifier', () => {
  let es: KeyPair;
  let rsa: KeyPair;

  beforeAll(async () => {
    es = await generateKeyPair('ES256', { extractable: true });
    rsa = await generateKeyPair('RS256', { extractable: true });
  });

  afterEach(() => jest.restoreAllMocks());

  describe('with a JWKS URL', () => {
    let jwks: Awaited<ReturnType<typeof jwksServer>>;

    beforeEach(async () => {
      jwks = await jwksServer();
      jwks.keys.push({ ...(await exportJWK(es.publicKey)), kid: 'k1', alg: 'ES256' });
    });

    afterEach(() => jwks.close());

    const remote = (cooldownMs: number, timeoutMs = 5_000) =>
      new TokenVerifier(
        jwtSettings({ jwksUrl: jwks.url, cooldownMs, cacheMaxAgeMs: 600_000, timeoutMs }),
      );

    it('verifies, reading the scopes, and fetches the set once for many tokens', async () => {
      const verifier = remote(30_000);
      for (let i = 0; i < 5; i++) {
        const verified = await verifier.verify(await sign(es, 'k1', { sub: `client-${i}` }));
        expect(verified).toEqual({ subject: `client-${i}`, scopes: new Set(['a', 'b']) });
      }
      expect(jwks.fetches()).toBe(1);
    });

    it('bounds refetches for unknown kids by the cooldown (no fetch storm from forged kids)', async () => {
      const verifier = remote(30_000);
      await verifier.verify(await sign(es, 'k1'));
      for (let i = 0; i < 10; i++) {
        await expect(verifier.verify(await sign(es, `forged-${i}`))).rejects.toBeInstanceOf(
          InvalidBearerTokenError,
        );
      }
      expect(jwks.fetches()).toBe(1);
    });

    it('answers AuthKeysUnavailableError (503) when the set answers an error, logging it once per interval', async () => {
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      jwks.answer(500);
      const verifier = remote(0);
      for (let i = 0; i < 3; i++) {
        await expect(verifier.verify(await sign(es, 'k1'))).rejects.toBeInstanceOf(
          AuthKeysUnavailableError,
        );
      }
      expect(error).toHaveBeenCalledTimes(1);
      expect(String(error.mock.calls[0][0])).toContain(`The JWKS at ${jwks.url} cannot be fetched`);
      jwks.answer(200);
      await expect(verifier.verify(await sign(es, 'k1'))).resolves.toBeDefined();
    });

    it('answers AuthKeysUnavailableError when the set does not answer within its timeout', async () => {
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      jwks.answer('hang');
      await expect(remote(0, 200).verify(await sign(es, 'k1'))).rejects.toBeInstanceOf(
        AuthKeysUnavailableError,
      );
    });
  });

  describe('with a configured PEM key', () => {
    const verifier = async (pair: KeyPair) =>
      new TokenVerifier(
        jwtSettings({ publicKey: parsePublicKey(await exportSPKI(pair.publicKey)) }),
      );

    it('verifies tokens of that key, any kid', async () => {
      const verified = await (
        await verifier(es)
      ).verify(await sign(es, 'whatever', { scp: 'x y' }));
      expect([...verified.scopes]).toEqual(['a', 'b', 'x', 'y']);
    });

    it('accepts any of the configured audiences', async () => {
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(ISSUER)
        .setAudience(['someone', 'other-api'])
        .setExpirationTime('5m')
        .sign(es.privateKey);
      await expect((await verifier(es)).verify(token)).resolves.toBeDefined();
    });

    it.each([
      ['a token signed by another key', async () => sign(rsa, 'k', {}, 'RS256'), 'signature'],
      [
        'an algorithm outside AUTH_ALGORITHMS',
        async () => {
          const es384 = await generateKeyPair('ES384');
          return sign(es384, 'k', {}, 'ES384');
        },
        'algorithm',
      ],
    ])('refuses %s', async (_name, token, reason) => {
      await expect((await verifier(es)).verify(await token())).rejects.toMatchObject({
        reason,
        httpStatus: 401,
      });
    });
  });

  it('is never used with AUTH_MODE=none', async () => {
    const none = new TokenVerifier({ mode: 'none', realm: 'test', production: false });
    await expect(none.verify('x')).rejects.toThrow(/AUTH_MODE=none/);
  });
});
