import { generateKeyPairSync } from 'node:crypto';
import { authModeOf, BaseEnvironment, validateEnvironment } from './environment';
import { authSettingsOf } from './auth-settings';

class Env extends BaseEnvironment {
  override PORT = 3000;
}

const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const JWT = {
  AUTH_MODE: 'jwt',
  AUTH_ISSUER: 'https://issuer.example/',
  AUTH_AUDIENCE: 'bank-backoffice',
  AUTH_JWKS_URL: 'https://issuer.example/jwks.json',
};

const problemsOf = (raw: Record<string, string | undefined>): string => {
  try {
    validateEnvironment(Env, raw);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
};

describe('AUTH_* configuration', () => {
  it('is none by default outside production, and without anything else to set', () => {
    for (const NODE_ENV of ['development', 'test']) {
      expect(authModeOf(validateEnvironment(Env, { NODE_ENV }))).toBe('none');
    }
  });

  it('refuses to start in production without AUTH_MODE, naming the rule', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toMatch(
      /AUTH_MODE: must be set explicitly with NODE_ENV=production/,
    );
    expect(problemsOf({ NODE_ENV: 'production', AUTH_MODE: '' })).toMatch(/AUTH_MODE: must be set/);
  });

  it('takes an explicit AUTH_MODE=none in production (the start-up warns: AuthModule)', () => {
    const env = validateEnvironment(Env, {
      NODE_ENV: 'production',
      AUTH_MODE: 'none',
      DATABASE_URL: 'postgres://h/db',
    });
    expect(authSettingsOf(env, 'svc')).toEqual({
      mode: 'none',
      realm: 'svc',
      production: true,
    });
  });

  it('refuses an unknown AUTH_MODE', () => {
    expect(problemsOf({ AUTH_MODE: 'basic' })).toMatch(
      /AUTH_MODE="basic": AUTH_MODE must be none or jwt/,
    );
  });

  it('builds the jwt settings with the documented defaults', () => {
    const env = validateEnvironment(Env, { ...JWT, AUTH_AUDIENCE: 'a, b' });
    expect(authSettingsOf(env, 'svc')).toEqual({
      mode: 'jwt',
      realm: 'svc',
      production: false,
      jwt: {
        issuer: 'https://issuer.example/',
        audience: ['a', 'b'],
        algorithms: expect.arrayContaining(['RS256', 'ES256', 'PS256', 'EdDSA']),
        clockToleranceSeconds: 30,
        keys: {
          jwksUrl: 'https://issuer.example/jwks.json',
          cooldownMs: 30_000,
          cacheMaxAgeMs: 600_000,
          timeoutMs: 5_000,
        },
      },
    });
  });

  it.each([
    ['AUTH_ISSUER', { AUTH_ISSUER: undefined }, /AUTH_ISSUER: required with AUTH_MODE=jwt/],
    ['AUTH_AUDIENCE', { AUTH_AUDIENCE: ' , ' }, /AUTH_AUDIENCE: required with AUTH_MODE=jwt/],
    [
      'a key source',
      { AUTH_JWKS_URL: undefined },
      /AUTH_JWKS_URL, AUTH_PUBLIC_KEY: exactly one is required/,
    ],
    [
      'a single key source',
      { AUTH_PUBLIC_KEY: PUBLIC_PEM },
      /AUTH_JWKS_URL, AUTH_PUBLIC_KEY: exactly one is required/,
    ],
    ['a URL', { AUTH_JWKS_URL: 'file:///etc/jwks' }, /AUTH_JWKS_URL must be an http\(s\) URL/],
    ['asymmetric algorithms', { AUTH_ALGORITHMS: 'RS256,HS256' }, /AUTH_ALGORITHMS may list only/],
    ['no alg none', { AUTH_ALGORITHMS: 'none' }, /AUTH_ALGORITHMS may list only/],
    ['a bounded clock tolerance', { AUTH_CLOCK_TOLERANCE_S: '600' }, /AUTH_CLOCK_TOLERANCE_S=/],
  ])('with AUTH_MODE=jwt requires %s', (_name, change, message) => {
    expect(problemsOf({ ...JWT, ...change })).toMatch(message);
  });

  it('requires an https JWKS in production', () => {
    const production = { ...JWT, NODE_ENV: 'production', DATABASE_URL: 'postgres://h/db' };
    expect(problemsOf({ ...production, AUTH_JWKS_URL: 'http://issuer.example/jwks.json' })).toMatch(
      /AUTH_JWKS_URL: must be https with NODE_ENV=production/,
    );
    expect(problemsOf(production)).toBe('');
  });

  it('takes a PEM public key (also with its line breaks written as \\n) instead of a JWKS', () => {
    for (const pem of [PUBLIC_PEM, PUBLIC_PEM.trim().replace(/\n/g, '\\n')]) {
      const env = validateEnvironment(Env, {
        ...JWT,
        AUTH_JWKS_URL: undefined,
        AUTH_PUBLIC_KEY: pem,
      });
      const settings = authSettingsOf(env, 'svc');
      expect(settings.mode === 'jwt' && 'publicKey' in settings.jwt.keys).toBe(true);
    }
  });

  it.each([
    ['a private key', PRIVATE_PEM, /AUTH_PUBLIC_KEY: is a private key/],
    [
      'a private JWK',
      JSON.stringify(privateKey.export({ format: 'jwk' })),
      /AUTH_PUBLIC_KEY: is a private JWK/,
    ],
    ['a symmetric JWK', '{"kty":"oct","k":"c2VjcmV0"}', /AUTH_PUBLIC_KEY: is a symmetric JWK/],
    ['garbage', 'not a key', /AUTH_PUBLIC_KEY: is neither a PEM public key/],
    [
      'a broken PEM',
      '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----',
      /AUTH_PUBLIC_KEY: is not a readable/,
    ],
  ])('refuses %s as AUTH_PUBLIC_KEY, without echoing it', (_name, key, message) => {
    const problems = problemsOf({ ...JWT, AUTH_JWKS_URL: undefined, AUTH_PUBLIC_KEY: key });
    expect(problems).toMatch(message);
    expect(problems).not.toContain(key.slice(0, 40));
  });
});
