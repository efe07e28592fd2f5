import { closedPort, runServiceCommand } from '@bank/shared/testing';
import { CARD_ISSUE_MAIN, spawnCardIssue } from '@bank/card-issue/testing';
import {
  CLIENT_REGISTRATION_MAIN,
  spawnClientRegistration,
} from '@bank/client-registration/testing';

/**
 * Configuration errors: a service started with bad configuration stops with a message that
 * names the variable and the rule; a password in a URL and a secret never appear in it.
 */
const PASSWORD = 'Pw-9f3a71c2-leak';

/** The lines of a process's output that are not JSON objects (spawnTestService's own excepted). */
function nonJsonLines(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\S+ exited with \d+:$/.test(line))
    .filter((line) => {
      try {
        const parsed = JSON.parse(line) as unknown;
        return !parsed || typeof parsed !== 'object' || Array.isArray(parsed);
      } catch {
        return true;
      }
    });
}

/** What a line says: the message of a JSON line (the services log JSON but in development). */
function said(line: string): string {
  try {
    const { msg } = JSON.parse(line) as { msg?: unknown };
    return typeof msg === 'string' ? msg : line;
  } catch {
    return line;
  }
}

/** What the output says, a JSON line's message in place of the line. */
function saidIn(output: string): string {
  return output.split('\n').map(said).join('\n');
}

/** A production X_SECRET that passes every rule (openssl rand -base64 24). */
const STRONG_X_SECRET = 'q7Vn2+LwX9pRt4Zk8Jm3Hs6Bd1Fy5Gc0';

/** The output of a start that must fail (spawnTestService throws with the process's output). */
async function failedStart(start: () => Promise<{ stop(signal: NodeJS.Signals): Promise<void> }>) {
  try {
    const started = await start();
    await started.stop('SIGKILL');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the service started');
}

describe('start-up refusals name the rule, never a credential', () => {
  it.each([
    ['card-issue', spawnCardIssue],
    ['client-registration', spawnClientRegistration],
  ])(
    '%s: a malformed DATABASE_URL is shown with its password masked',
    async (_name, spawn) => {
      const output = await failedStart(() =>
        spawn({ DATABASE_URL: `postgres://app:${PASSWORD} /x@db.internal:5432/cards` }),
      );
      expect(output).toMatch(/exited with 1/);
      expect(saidIn(output)).toContain('DATABASE_URL="postgres://app:***@db.internal:5432/cards"');
      expect(output).not.toContain(PASSWORD);
    },
    60_000,
  );

  it.each([
    ['card-issue', spawnCardIssue],
    ['client-registration', spawnClientRegistration],
  ])(
    '%s: an unencoded "@" in the DATABASE_URL password stops the start, saying to encode it',
    async (_name, spawn) => {
      // pg would read the host from the wrong "@" on and fail on "getaddrinfo ENOTFOUND",
      // naming a piece of the password as the host.
      const output = await failedStart(() =>
        spawn({ DATABASE_URL: `postgres://app:${PASSWORD}@x@db.internal:5432/cards` }),
      );
      expect(output).toMatch(/exited with 1/);
      // One line, JSON as every line of the service.
      const lines = output.split('\n').filter((line) => line.includes('DATABASE_URL'));
      expect(lines).toHaveLength(1);
      expect(nonJsonLines(output)).toEqual([]);
      expect(said(lines[0])).toContain('DATABASE_URL="postgres://app:***@db.internal:5432/cards"');
      expect(said(lines[0])).toMatch(/unencoded "@".*@ as %40/);
      expect(output).not.toContain(PASSWORD);
      expect(output).not.toMatch(/ENOTFOUND|getaddrinfo/);
    },
    60_000,
  );

  it.each([
    ['shorter than 32 characters', 'Sx-31b7', /X_SECRET must be at least 32 characters/],
    ['the development default', 'dev-secret', /X_SECRET must not be the development default/],
    ['surrounded by whitespace', ` Sx-${'7'.repeat(40)} `, /X_SECRET must not begin or end/],
    // Long enough, and weak.
    ['of one character repeated', 'a'.repeat(32), /X_SECRET must not be a short pattern repeated/],
    [
      'of the development default repeated',
      'dev-secretdev-secretdev-secret12',
      /X_SECRET must not be made of default or common words/,
    ],
    [
      'of a placeholder repeated',
      'changeme'.repeat(4),
      /X_SECRET must have at least 128 bits of entropy/,
    ],
  ])(
    'card-issue with NODE_ENV=production refuses an X_SECRET %s, naming the rule only',
    async (_name, secret, rule) => {
      const output = await failedStart(() =>
        spawnCardIssue({ NODE_ENV: 'production', X_SECRET: secret }),
      );
      expect(output).toMatch(/exited with 1/);
      expect(saidIn(output)).toMatch(rule);
      expect(output).not.toContain(secret.trim());
      // With NODE_ENV=production the refusal is one JSON line, as every line of the service.
      expect(nonJsonLines(output)).toEqual([]);
      expect(output.split('\n').filter((line) => line.includes('X_SECRET'))).toHaveLength(1);
    },
    60_000,
  );
});

/**
 * A service started with NODE_ENV=production logs JSON lines only (pino), from its first line:
 * the database errors of the start-up came before the service's logger was attached, and were
 * printed by Nest's coloured text logger, the error's stack over many lines.
 */
describe('start-up with NODE_ENV=production logs JSON lines only', () => {
  it.each([
    ['card-issue', CARD_ISSUE_MAIN],
    ['client-registration', CLIENT_REGISTRATION_MAIN],
  ])(
    '%s: a database out of reach at start',
    async (_name, main) => {
      const { code, output } = await runServiceCommand(main, [], {
        NODE_ENV: 'production',
        AUTH_MODE: 'none',
        X_SECRET: STRONG_X_SECRET,
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: String(await closedPort()),
        DATABASE_URL: `postgres://app:${PASSWORD}@127.0.0.1:${await closedPort()}/cards`,
        // Start-up waits for the database this long (answering 503), then gives up with exit 1.
        DB_STARTUP_WAIT_MS: '1500',
      });
      expect(code).toBe(1);
      expect(output).toMatch(/ECONNREFUSED/);
      expect(nonJsonLines(output)).toEqual([]);
      expect(output).not.toContain(PASSWORD);
    },
    90_000,
  );
});
