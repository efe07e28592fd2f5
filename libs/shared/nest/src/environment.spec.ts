import { BaseEnvironment, validateEnvironment } from './environment';

class Env extends BaseEnvironment {
  override PORT = 3000;
}

describe('validateEnvironment', () => {
  it('gives typed defaults', () => {
    const env = validateEnvironment(Env, {});
    expect(env).toMatchObject({
      PORT: 3000,
      DB_POOL_SIZE: 10,
      DB_MIGRATIONS_RUN: true,
      BUSINESS_TIME_ZONE: 'Europe/Moscow',
    });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it('converts strings', () => {
    const env = validateEnvironment(Env, {
      PORT: '8080',
      DB_MIGRATIONS_RUN: 'false',
      BASE_PATH: '/card-issue',
    });
    expect(env).toMatchObject({ PORT: 8080, DB_MIGRATIONS_RUN: false, BASE_PATH: '/card-issue' });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DB_POOL_SIZE', '0'],
    ['DB_MIGRATIONS_RUN', 'maybe'],
    ['DATABASE_URL', 'mysql://x'],
    ['BASE_PATH', 'card-issue/'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['BUSINESS_TIME_ZONE', 'Mars/Olympus'],
  ])('stops on a bad %s naming the variable', (name, value) => {
    expect(() => validateEnvironment(Env, { [name]: value })).toThrow(
      new RegExp(`^Invalid configuration:[\\s\\S]*${name}=`),
    );
  });

  it('shows the value as given', () => {
    expect(() => validateEnvironment(Env, { PORT: 'eighty' })).toThrow(/PORT="eighty"/);
  });

  it('names every bad variable at once', () => {
    expect(() => validateEnvironment(Env, { PORT: 'x', LOG_LEVEL: 'y' })).toThrow(
      /PORT=[\s\S]*LOG_LEVEL=/,
    );
  });
});
