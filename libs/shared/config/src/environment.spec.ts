import { Matches } from 'class-validator';
import { BaseEnvironment, maskCredentials, validateEnvironment } from './environment';

class Env extends BaseEnvironment {
  override PORT = 3000;
}

class OwnPortEnv extends BaseEnvironment {
  static override readonly PORT_VARIABLE = 'OWN_SERVICE_PORT';
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

  describe("the service's own port variable", () => {
    it('wins over PORT, so one shell can give two services their ports', () => {
      expect(validateEnvironment(OwnPortEnv, { PORT: '4300', OWN_SERVICE_PORT: '4301' }).PORT).toBe(
        4301,
      );
      expect(validateEnvironment(OwnPortEnv, { PORT: '4300' }).PORT).toBe(4300);
      expect(validateEnvironment(OwnPortEnv, { OWN_SERVICE_PORT: '' }).PORT).toBe(3000);
    });

    it('is named when its value is bad', () => {
      expect(() => validateEnvironment(OwnPortEnv, { OWN_SERVICE_PORT: 'x' })).toThrow(
        /OWN_SERVICE_PORT="x"/,
      );
    });
  });

  it.each(['json', 'pretty'])('accepts LOG_FORMAT=%s', (format) => {
    expect(validateEnvironment(Env, { LOG_FORMAT: format }).LOG_FORMAT).toBe(format);
  });

  it('stops on an unknown LOG_FORMAT', () => {
    expect(() => validateEnvironment(Env, { LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT="xml"/);
  });

  it.each([
    ['a URL of another scheme', 'mysql://app:Pa55word@db:3306/cards'],
    ['a password with an unencoded @, without a host', 'postgres://app:Pa55@word@/cards'],
    ['a password with a space and a slash', 'postgres://app:Pa55 /word@db/cards'],
    ['a password with a quote, without a host', 'postgres://app:Pa55"word@'],
    ['a URL of no scheme', 'app:Pa55word@db/cards'],
  ])('never shows the password of %s, only the user and host', (_name, url) => {
    const message = (() => {
      try {
        validateEnvironment(Env, { DATABASE_URL: url });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    })();
    expect(message).toMatch(/^Invalid configuration:[\s\S]*DATABASE_URL=.*\*\*\*/);
    expect(message).not.toMatch(/Pa55/);
    expect(message).toMatch(/app:\*\*\*@|\*\*\*@/);
  });

  // pg reads such a URL's host from the wrong "@" on: the service then failed on
  // "getaddrinfo ENOTFOUND" naming a piece of the password as the host.
  it.each([
    ['DATABASE_URL', 'postgres://app:Pa55@word@db.internal:5432/cards', '"@"', '%40'],
    ['DATABASE_URL', 'postgres://app:Pa55@w#rd@db.internal/cards?sslmode=require', '"@"', '%40'],
    ['DATABASE_URL', 'postgres://app:Pa55/w@rd@db.internal/cards', '"@", "/"', '%2F'],
    ['DATABASE_URL', 'postgres://ap@p:Pa55word@db.internal/cards', '"@"', '%40'],
    ['DATABASE_DIRECT_URL', 'postgres://app:Pa55?word@db.internal/cards', '"?"', '%3F'],
  ])(
    'refuses %s with an unencoded %s in its user information, saying how to encode it',
    (name, url, characters, encoded) => {
      let message = 'accepted';
      try {
        validateEnvironment(Env, {
          DATABASE_URL: 'postgres://app@db.internal/cards',
          [name]: url,
        });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(
        `${name}="postgres://ap`, // the user name up to its first ":" stays, the password is masked
      );
      expect(message).toContain(`the user name or password has an unencoded ${characters}`);
      expect(message).toContain(encoded);
      expect(message).not.toMatch(/Pa55|w#rd|w@rd/);
    },
  );

  it.each([
    'postgres://app:Pa55%40word@db.internal:5432/cards',
    'postgres://app@db.internal/cards?application_name=a@b',
    'postgres://db.internal/cards?sslrootcert=/etc/ssl/ca.pem',
    'postgres://app:Pa55word@db.internal/cards?options=-c%20search_path%3Dx',
  ])('takes %s', (url) => {
    expect(validateEnvironment(Env, { DATABASE_URL: url }).DATABASE_URL).toBe(url);
  });

  it('names a secret variable and its rule, never its value', () => {
    class WithSecret extends Env {
      @Matches(/^.{8,}$/, { message: 'SOME_SECRET must be at least 8 characters' })
      SOME_SECRET = '';
    }
    expect(() => validateEnvironment(WithSecret, { SOME_SECRET: 'tiny' })).toThrow(
      /SOME_SECRET: SOME_SECRET must be at least 8 characters/,
    );
    expect(() => validateEnvironment(WithSecret, { SOME_SECRET: 'tiny' })).not.toThrow(/tiny/);
  });
});

describe('maskCredentials', () => {
  it.each([
    ['postgres://app:s3cret@db:5432/cards', 'postgres://app:***@db:5432/cards'],
    [
      'connect to https://token@api.example/x failed',
      'connect to https://***@api.example/x failed',
    ],
    ['"postgres://u:p@ss@h/db"', '"postgres://u:***@h/db"'],
    ['postgres://db:5432/cards', 'postgres://db:5432/cards'],
    ['no URL here: user@example.com', 'no URL here: user@example.com'],
  ])('%s', (text, masked) => {
    expect(maskCredentials(text)).toBe(masked);
  });
});

describe('production guards', () => {
  it('refuses NODE_ENV=production without DATABASE_URL', () => {
    expect(() => validateEnvironment(Env, { NODE_ENV: 'production' })).toThrow(
      /DATABASE_URL is required when NODE_ENV=production/,
    );
  });

  it('accepts production with DATABASE_URL, or with the explicit embedded-database opt-in', () => {
    expect(
      validateEnvironment(Env, {
        NODE_ENV: 'production',
        AUTH_MODE: 'none',
        DATABASE_URL: 'postgres://h/db',
      }),
    ).toMatchObject({ NODE_ENV: 'production', ALLOW_EMBEDDED_DATABASE: false });
    expect(
      validateEnvironment(Env, {
        NODE_ENV: 'production',
        AUTH_MODE: 'none',
        ALLOW_EMBEDDED_DATABASE: 'true',
      }),
    ).toMatchObject({ ALLOW_EMBEDDED_DATABASE: true });
    expect(validateEnvironment(Env, {}).DATABASE_URL).toBeUndefined();
  });

  it('DOCS_ENABLED defaults to true and takes a boolean', () => {
    expect(validateEnvironment(Env, {}).DOCS_ENABLED).toBe(true);
    expect(validateEnvironment(Env, { DOCS_ENABLED: 'false' }).DOCS_ENABLED).toBe(false);
    expect(() => validateEnvironment(Env, { DOCS_ENABLED: 'nope' })).toThrow(/DOCS_ENABLED=/);
  });

  it('DATABASE_DIRECT_URL must be a postgres URL and comes with DATABASE_URL', () => {
    expect(() =>
      validateEnvironment(Env, { DATABASE_URL: 'postgres://h/db', DATABASE_DIRECT_URL: 'x' }),
    ).toThrow(/DATABASE_DIRECT_URL="x"/);
    expect(() => validateEnvironment(Env, { DATABASE_DIRECT_URL: 'postgres://h/db' })).toThrow(
      /DATABASE_DIRECT_URL is set without DATABASE_URL/,
    );
  });

  describe('CORS_ORIGINS', () => {
    it.each([undefined, '', ' , '])('is off when unset or empty (%j)', (value) => {
      expect(validateEnvironment(Env, { CORS_ORIGINS: value }).CORS_ORIGINS).toBeUndefined();
    });

    it('takes a comma-separated list of origins', () => {
      const env = validateEnvironment(Env, {
        CORS_ORIGINS: 'https://app.example.com, http://localhost:3000,https://[::1]:8443',
      });
      expect(env.CORS_ORIGINS).toEqual([
        'https://app.example.com',
        'http://localhost:3000',
        'https://[::1]:8443',
      ]);
    });

    it('takes * outside production', () => {
      expect(validateEnvironment(Env, { CORS_ORIGINS: '*' }).CORS_ORIGINS).toEqual(['*']);
      expect(
        validateEnvironment(Env, { CORS_ORIGINS: '*', NODE_ENV: 'test' }).CORS_ORIGINS,
      ).toEqual(['*']);
    });

    it('refuses * in production', () => {
      expect(() => validateEnvironment(Env, { CORS_ORIGINS: '*', NODE_ENV: 'production' })).toThrow(
        /CORS_ORIGINS="\*": \* \(any origin\) is refused in production/,
      );
    });

    it('refuses * among other origins', () => {
      expect(() => validateEnvironment(Env, { CORS_ORIGINS: 'https://app.example.com,*' })).toThrow(
        /cannot be combined/,
      );
    });

    it.each([
      'https://app.example.com/',
      'https://app.example.com/app',
      'https://App.example.com',
      'https://app.example.com:443',
      'app.example.com',
      'ftp://app.example.com',
      'https://user@app.example.com',
      'https://*.example.com',
      'null',
    ])('refuses %s, which no browser sends as an Origin', (origin) => {
      expect(() =>
        validateEnvironment(Env, { CORS_ORIGINS: `https://ok.example.com,${origin}` }),
      ).toThrow(
        new RegExp(
          `CORS_ORIGINS=.*: ${origin.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not an origin`,
        ),
      );
    });
  });
});
