import { validateEnvironment } from '@bank/shared/nest';
import { AppModule } from '../app.module';
import { CardIssueEnvironment, DEV_X_SECRET, xSecretOf } from './environment.config';

describe('CardIssueEnvironment', () => {
  it('stops start-up in production when X_SECRET is unset or empty, naming the variable', () => {
    for (const raw of [{ NODE_ENV: 'production' }, { NODE_ENV: 'production', X_SECRET: '' }]) {
      expect(() => validateEnvironment(CardIssueEnvironment, raw)).toThrow(/X_SECRET/);
    }
  });

  it('keeps the production service from being assembled without X_SECRET', () => {
    expect(() => AppModule.register({ NODE_ENV: 'production', X_SECRET: '' })).toThrow(
      /Invalid configuration:[\s\S]*X_SECRET/,
    );
  });

  it('takes X_SECRET in production', () => {
    const env = validateEnvironment(CardIssueEnvironment, {
      NODE_ENV: 'production',
      X_SECRET: 's3cret',
    });
    expect(xSecretOf(env)).toBe('s3cret');
  });

  it.each(['development', 'test'])(
    'falls back to %s default "dev-secret" outside production',
    (NODE_ENV) => {
      const env = validateEnvironment(CardIssueEnvironment, { NODE_ENV });
      expect(xSecretOf(env)).toBe(DEV_X_SECRET);
    },
  );

  it('has the documented defaults for the gateways', () => {
    const env = validateEnvironment(CardIssueEnvironment, {});
    expect(env).toMatchObject({
      DOWNSTREAM_TIMEOUT_MS: 2000,
      DOWNSTREAM_RETRIES: 2,
      DOWNSTREAM_RETRY_DELAY_MS: 100,
    });
    expect(env.USER_API_URL).toBeUndefined();
  });

  it('refuses malformed downstream URLs and timeouts, naming each variable', () => {
    expect(() =>
      validateEnvironment(CardIssueEnvironment, {
        USER_API_URL: 'ftp://x',
        BRANCH_API_URL: 'not a url',
        DOWNSTREAM_TIMEOUT_MS: '0',
      }),
    ).toThrow(/USER_API_URL[\s\S]*BRANCH_API_URL[\s\S]*DOWNSTREAM_TIMEOUT_MS/);
  });

  it('drops a trailing slash of a configured URL', () => {
    const env = validateEnvironment(CardIssueEnvironment, {
      OPERATION_API_URL: 'http://ops.internal:8080/operation-api/',
    });
    expect(env.OPERATION_API_URL).toBe('http://ops.internal:8080/operation-api');
  });
});
