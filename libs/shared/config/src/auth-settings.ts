import { AuthSettings, parsePublicKey } from '@bank/shared/auth';
import { authModeOf, BaseEnvironment } from './environment';

/** The AUTH_* variables (validated) as the auth lib takes them; the realm is the service's name. */
export function authSettingsOf(env: BaseEnvironment, serviceName: string): AuthSettings {
  const common = { realm: serviceName, production: env.NODE_ENV === 'production' };
  if (authModeOf(env) === 'none') return { mode: 'none', ...common };
  return {
    mode: 'jwt',
    ...common,
    jwt: {
      issuer: env.AUTH_ISSUER as string,
      audience: env.AUTH_AUDIENCE ?? [],
      algorithms: env.AUTH_ALGORITHMS,
      clockToleranceSeconds: env.AUTH_CLOCK_TOLERANCE_S,
      keys: env.AUTH_JWKS_URL
        ? {
            jwksUrl: env.AUTH_JWKS_URL,
            cooldownMs: env.AUTH_JWKS_COOLDOWN_MS,
            cacheMaxAgeMs: env.AUTH_JWKS_CACHE_MAX_AGE_MS,
            timeoutMs: env.AUTH_JWKS_TIMEOUT_MS,
          }
        : { publicKey: parsePublicKey(env.AUTH_PUBLIC_KEY as string) },
    },
  };
}
