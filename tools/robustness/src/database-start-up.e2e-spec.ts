import { HttpResult, sendJson } from './support/http';
import { serviceBehindProxy } from './support/service-behind-proxy';
import { startTcpProxy, TcpProxy } from './support/tcp-proxy';
import { ErrorShape, expectedUnavailable, unavailableAnswer } from './support/shapes';
import {
  createTestDatabase,
  eventually,
  runsExclusively,
  TestDatabase,
  TestServiceProcess,
} from '@bank/shared/testing';
import { createUser, selfVirtual, spawnCardIssue } from '@bank/card-issue/testing';
import { registration, spawnClientRegistration } from '@bank/client-registration/testing';

/**
 * A service started while its database is out of reach (a TCP proxy in front of it resets every
 * connection, as when no primary exists during a failover). Start-up waits for the database
 * with backoff instead of exiting, and the port answers meanwhile: liveness 200, readiness 503,
 * every other request 503 with Retry-After in the service's error shape, naming the database.
 * Once the database is back the same process becomes ready and stores writes. PostgreSQL only:
 * the embedded default has no server to wait for.
 */
interface Starting {
  service: string;
  shape: ErrorShape;
  names: RegExp;
  spawn(env: Record<string, string>): Promise<TestServiceProcess>;
  /** A write that needs the database; `ready`: it may prepare what it needs first. */
  write(url: string, ready: boolean): Promise<HttpResult>;
}

const QUIET = { SCHEDULER_ENABLED: 'false', OUTBOX_ENABLED: 'false', WEBHOOKS_ENABLED: 'false' };

const STARTING: Starting[] = [
  {
    service: 'card-issue',
    shape: 'card-issue',
    names: /database/i,
    spawn: (env) => spawnCardIssue({ ...QUIET, ...env }, 90_000, 'live'),
    write: async (url, ready) =>
      sendJson(
        `${url}/api/v1/card-issue`,
        'POST',
        selfVirtual(ready ? await createUser(url) : 'X1A2B3'),
      ),
  },
  {
    service: 'client-registration',
    shape: 'registration',
    names: /баз[аеы] данных/i,
    spawn: (env) => spawnClientRegistration({ SCHEDULER_ENABLED: 'false', ...env }, 90_000, 'live'),
    write: (url) => sendJson(`${url}/api/clients`, 'POST', registration()),
  },
];

const describeOnPostgres = process.env.TEST_DATABASE_URL ? describe.each : describe.skip.each;
const itOnPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;

describeOnPostgres(STARTING)('start-up without its database: $service', (starting) => {
  const s = serviceBehindProxy(
    `robust_start_wait_${starting.service.replace('-', '_')}`,
    (proxy) => {
      proxy.cut();
      return starting.spawn({
        DATABASE_URL: proxy.url,
        DB_STARTUP_WAIT_MS: '120000',
        LOG_LEVEL: 'info',
      });
    },
  );

  it('answers 503 with Retry-After while it waits, then becomes ready and stores writes', async () => {
    const url = s.child!.url;
    const during = await starting.write(url, false);
    expect(unavailableAnswer(during, starting.shape)).toEqual(expectedUnavailable(starting.names));
    expect(during.headers['x-request-id']).toBeTruthy();
    const live = await sendJson(`${url}/api/health/live`, 'GET', undefined);
    const ready = await sendJson(`${url}/api/health/ready`, 'GET', undefined);
    expect([live.status, ready.status]).toEqual([200, 503]);
    expect(ready.body).toEqual({ status: 'DOWN', service: starting.service });

    s.proxy.restore();
    await eventually(
      async () => {
        const res = await sendJson(`${url}/api/health/ready`, 'GET', undefined).catch(() => null);
        return res?.status === 200;
      },
      60_000,
      200,
    );
    const created = await starting.write(url, true);
    expect(created.status).toBe(201);
    expect(s.child!.proc.exitCode).toBeNull();
    // The wait's log: a line per failure kind per interval with a count, never a stack.
    const lines = s.child!.output().split('\n');
    expect(lines.filter((line) => line.includes('"stack"'))).toEqual([]);
    expect(
      lines.find((line) =>
        /Waiting for the database at start-up: Database unavailable \(connection\)/.test(line),
      ),
    ).toBeDefined();
    expect(s.child!.output()).toMatch(/Database reachable after \d+ ms/);
  }, 120_000);
});

(process.env.TEST_DATABASE_URL ? describe : describe.skip)('start-up wait: its end', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;

  beforeAll(async () => {
    db = await createTestDatabase('robust_start_wait_end');
    proxy = await startTcpProxy(db.url);
    proxy.cut();
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await db?.drop();
  });

  itOnPostgres(
    'gives up after DB_STARTUP_WAIT_MS with exit 1 and a fatal line',
    async () => {
      const child = await spawnClientRegistration(
        { DATABASE_URL: proxy.url, DB_STARTUP_WAIT_MS: '1500' },
        90_000,
        'live',
      ).catch((error: Error) => error);
      // It may have given up before the first probe answered: both are the end sought here.
      let output: string;
      if (child instanceof Error) {
        output = child.message;
        expect(output).toMatch(/exited with 1/);
      } else {
        expect(await child.exited).toBe('code 1');
        output = child.output();
      }
      const fatal = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .filter((line) => line.level === 60);
      expect(fatal).toEqual([
        expect.objectContaining({
          msg: expect.stringMatching(
            /^The database did not accept a writable connection within DB_STARTUP_WAIT_MS \(\d+ ms, \d+ tries\); last failure: Database unavailable \(connection\)/,
          ),
        }),
      ]);
    },
    120_000,
  );

  itOnPostgres(
    'ends at once on SIGTERM while it waits',
    async () => {
      const child = await spawnClientRegistration(
        { DATABASE_URL: proxy.url, DB_STARTUP_WAIT_MS: '120000', LOG_LEVEL: 'info' },
        90_000,
        'live',
      );
      child.proc.kill('SIGTERM');
      expect(await child.exited).toBe('code 0');
      expect(child.output()).toMatch(/Stopped on SIGTERM while waiting for the database/);
    },
    120_000,
  );
});

// Spawns processes: never beside another such file when Jest runs two files at a time.
runsExclusively();
