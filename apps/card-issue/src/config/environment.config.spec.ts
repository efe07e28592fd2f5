import { validateEnvironment } from '@bank/shared/config';
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

  it('takes a random X_SECRET of 32 characters or more in production', () => {
    // openssl rand -base64 24
    const secret = 'q7Vn2+LwX9pRt4Zk8Jm3Hs6Bd1Fy5Gc0';
    const env = validateEnvironment(CardIssueEnvironment, {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://card_issue@db:5432/card_issue',
      X_SECRET: secret,
      AUTH_MODE: 'none',
    });
    expect(xSecretOf(env)).toBe(secret);
  });

  it.each([
    ['shorter than 32 characters', 's3cret-Zq9', /X_SECRET must be at least 32 characters/],
    ['the development default', DEV_X_SECRET, /X_SECRET must not be the development default/],
    [
      'surrounded by whitespace',
      ` ${'k'.repeat(40)}\n`,
      /X_SECRET must not begin or end with whitespace/,
    ],
    // Long enough, and weak: these passed the length rule.
    ['of one character repeated', 'a'.repeat(32), /X_SECRET must not be a short pattern repeated/],
    [
      'of the development default repeated',
      'dev-secretdev-secretdev-secret12',
      /X_SECRET must not be made of default or common words/,
    ],
    [
      'of a placeholder repeated',
      'changeme'.repeat(4),
      /X_SECRET must not be a short pattern repeated.*; X_SECRET must not be made of default or common words/,
    ],
    [
      'of too little entropy',
      'abcdefghijklmnopqrstuvwxyzabcdefghij',
      /X_SECRET must have at least 128 bits of entropy/,
    ],
  ])(
    'refuses a production X_SECRET %s, naming the rule but not the value',
    (_name, secret, rule) => {
      let message = '';
      try {
        validateEnvironment(CardIssueEnvironment, {
          NODE_ENV: 'production',
          DATABASE_URL: 'postgres://card_issue@db:5432/card_issue',
          X_SECRET: secret,
        });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(rule);
      expect(message).toMatch(/^Invalid configuration:\n {2}X_SECRET: /);
      expect(message).not.toContain(secret.trim());
    },
  );

  it.each(['development', 'test'])('takes any X_SECRET with NODE_ENV=%s', (NODE_ENV) => {
    const env = validateEnvironment(CardIssueEnvironment, { NODE_ENV, X_SECRET: 'short' });
    expect(xSecretOf(env)).toBe('short');
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
      DOWNSTREAM_BREAKER_FAILURES: 20,
      DOWNSTREAM_BREAKER_FAILURE_RATE: 0.5,
      DOWNSTREAM_BREAKER_WINDOW_MS: 10_000,
      DOWNSTREAM_BREAKER_OPEN_MS: 5_000,
    });
    expect(env.USER_API_URL).toBeUndefined();
  });

  it('takes a failure rate strictly between 0 and 1 and a window of at least a second', () => {
    expect(
      validateEnvironment(CardIssueEnvironment, { DOWNSTREAM_BREAKER_FAILURE_RATE: '0.25' }),
    ).toMatchObject({ DOWNSTREAM_BREAKER_FAILURE_RATE: 0.25 });
    for (const rate of ['0', '1', 'half'])
      expect(() =>
        validateEnvironment(CardIssueEnvironment, { DOWNSTREAM_BREAKER_FAILURE_RATE: rate }),
      ).toThrow(/DOWNSTREAM_BREAKER_FAILURE_RATE/);
    expect(() =>
      validateEnvironment(CardIssueEnvironment, { DOWNSTREAM_BREAKER_WINDOW_MS: '500' }),
    ).toThrow(/DOWNSTREAM_BREAKER_WINDOW_MS/);
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

  it('keeps the production service from being assembled without AUTH_MODE, naming the rule', () => {
    expect(() =>
      AppModule.register({
        NODE_ENV: 'production',
        X_SECRET: 'a-production-secret-of-at-least-32-characters',
      }),
    ).toThrow(
      /Invalid configuration:[\s\S]*AUTH_MODE: must be set explicitly with NODE_ENV=production/,
    );
  });
});
