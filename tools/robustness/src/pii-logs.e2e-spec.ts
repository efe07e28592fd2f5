import { Client } from 'pg';
import { HttpResult, sendJson } from './support/http';
import { createTestDatabase, sleep, TestDatabase, TestServiceProcess } from '@bank/shared/testing';
import { aUser, createUser, spawnCardIssue } from '@bank/card-issue/testing';
import {
  passportData,
  registration,
  spawnClientRegistration,
} from '@bank/client-registration/testing';

/**
 * No personal data in the logs: a query that fails must not bring its parameters (a whole row:
 * phone, e-mail, passport, addresses) or the driver's error payload (its `detail` repeats the
 * row) into the log, at any level. Each request carries personal data no other request has, and
 * every line the process writes (LOG_LEVEL=trace) is searched for every value sent:
 * - the database refuses the row (a CHECK constraint the test adds: the statement fails with
 *   a driver error that is no outage, the unexpected-error path, logged with its error), on
 *   PostgreSQL and PGlite;
 * - the database's backends are killed under load (real PostgreSQL only: PGlite has no
 *   backends to terminate).
 */
const realPostgres = !!process.env.TEST_DATABASE_URL;
const LOAD_MS = 4_000;
const KILLS_AT = [700, 1_500, 2_300, 3_100];
const WORKERS = 4;

/** Personal data of request n: values found nowhere else, so any hit is a leak. */
function personalData(service: string, n: number) {
  const k = String(n).padStart(4, '0');
  const base = service === 'card' ? 1 : 5;
  return {
    phone: `7${base}${'8'.repeat(5)}${k}`,
    email: `pii.${service}.${k}@leak-check.example`,
    series: `${base}${k.slice(1)}`,
    number: `9${base}${k}`,
    street: `Leakstreet${service}${k}`,
    lastName: `Leaksurname${service}${k}`,
  };
}
type PersonalData = ReturnType<typeof personalData>;

async function terminateBackends(databaseUrl: string): Promise<number> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    const rows = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    return rows.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

/** Runs `send(n)` from WORKERS loops for LOAD_MS while the database's backends are killed. */
async function underBackendKills(
  databaseUrl: string,
  send: (n: number) => Promise<HttpResult>,
): Promise<{ sent: number; statuses: Record<number, number>; terminated: number }> {
  const statuses: Record<number, number> = {};
  let sent = 0;
  const started = Date.now();
  const worker = async () => {
    while (Date.now() - started < LOAD_MS) {
      const res = await send(sent++);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  const load = Promise.all(Array.from({ length: WORKERS }, worker));
  let terminated = 0;
  for (const at of KILLS_AT) {
    await sleep(Math.max(0, at - (Date.now() - started)));
    terminated += await terminateBackends(databaseUrl);
  }
  await load;
  return { sent, statuses, terminated };
}

/**
 * The lines holding any of the values, each shortened to the values it holds and the text
 * around the first one (so a failure shows where it leaked). A value counts only as a whole
 * token, not inside a longer run of letters and digits: the log is full of epoch
 * milliseconds, durations, pids and request ids (uuids, hex), and a passport number's six
 * digits turn up inside them by chance (a leaked parameter stands alone: `"951382"`,
 * `(5138, 951382)`). (A passport series has 4
 * digits, too few to tell from other numbers: its number stands for the passport.)
 */
function leaks(log: string, people: PersonalData[]): string[] {
  const values = people.flatMap(({ series: _series, ...distinct }) => Object.values(distinct));
  const tokens = values.map((value) => ({
    value,
    pattern: new RegExp(
      `(?<![0-9A-Za-z])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`,
    ),
  }));
  return log.split('\n').flatMap((line) => {
    const found = tokens.filter(({ value, pattern }) => line.includes(value) && pattern.test(line));
    if (!found.length) return [];
    const at = line.search(found[0].pattern);
    const context = line.slice(Math.max(0, at - 80), at + 80);
    return [`${found.map(({ value }) => value).join(', ')} in: ${context}`];
  });
}

const LOGGING = { LOG_LEVEL: 'trace', DB_POOL_SIZE: '4', ERROR_LOG_INTERVAL_MS: '100' };

/** Runs SQL on the test database as the test (not the service). */
async function onDatabase(databaseUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function thirdPartyHolder(p: PersonalData) {
  return aUser({
    lastName: p.lastName,
    contactInfo: { phone: p.phone, email: p.email },
    passportData: {
      birthDate: '15-03-1990',
      birthPlace: 'Moscow',
      issueDate: '20-03-2010',
      series: p.series,
      number: p.number,
    },
    actualAddress: { ...aUser().actualAddress, street: p.street },
  });
}

function client(p: PersonalData) {
  return registration({
    lastName: p.lastName,
    contactInfo: { phone: p.phone, email: p.email },
    passportData: passportData({ series: p.series, number: p.number }),
    actualAddress: { ...registration().actualAddress, street: p.street },
  });
}

describe('PII in logs: the database refuses a row', () => {
  let db: TestDatabase;
  let child: TestServiceProcess | undefined;
  beforeEach(async () => {
    db = await createTestDatabase('robust_pii_refused');
  });
  afterEach(async () => {
    await child?.stop('SIGKILL');
    child = undefined;
    await db?.drop();
  });

  it('card-issue: the unexpected error is logged with its SQLSTATE and constraint, not the row', async () => {
    child = await spawnCardIssue({
      DATABASE_URL: db.url,
      SCHEDULER_ENABLED: 'false',
      OUTBOX_ENABLED: 'false',
      ...LOGGING,
    });
    const owner = await createUser(child.url);
    const p = personalData('card', 9001);
    await onDatabase(
      db.url,
      `ALTER TABLE user_service.users ADD CONSTRAINT pii_probe CHECK (phone <> '${p.phone}')`,
    );
    const res = await sendJson(`${child.url}/api/v1/card-issue`, 'POST', {
      request: {
        cardOwner: owner,
        formFactor: 'VIRTUAL',
        cardHolder: { nameless: false, user: thirdPartyHolder(p) },
      },
    });
    expect(res.status).toBeGreaterThanOrEqual(500);
    await child.stop('SIGTERM');
    const log = child.output();
    const logged = log.split('\n').find((line) => line.includes('"Unexpected error"'));
    expect(logged).toBeDefined();
    expect(logged).toContain('23514');
    expect(logged).toContain('pii_probe');
    expect(leaks(log, [p])).toEqual([]);
  }, 120_000);

  it('client-registration: the unexpected error is logged with its SQLSTATE and constraint, not the row', async () => {
    child = await spawnClientRegistration({ DATABASE_URL: db.url, ...LOGGING });
    const p = personalData('reg', 9001);
    await onDatabase(
      db.url,
      `ALTER TABLE clients ADD CONSTRAINT pii_probe CHECK (phone <> '${p.phone}')`,
    );
    const res = await sendJson(`${child.url}/api/clients`, 'POST', client(p));
    expect(res.status).toBe(500);
    await child.stop('SIGTERM');
    const log = child.output();
    const logged = log.split('\n').find((line) => line.includes('"Unexpected error"'));
    expect(logged).toBeDefined();
    expect(logged).toContain('23514');
    expect(logged).toContain('pii_probe');
    expect(leaks(log, [p])).toEqual([]);
  }, 120_000);
});

(realPostgres ? describe : describe.skip)(
  'PII in logs: backends killed under load (real PostgreSQL)',
  () => {
    let db: TestDatabase;
    let child: TestServiceProcess | undefined;
    beforeEach(async () => {
      db = await createTestDatabase('robust_pii_logs');
    });
    afterEach(async () => {
      await child?.stop('SIGKILL');
      child = undefined;
      await db?.drop();
    });

    it('card-issue: no query parameter or driver payload of a third-party holder in any log line', async () => {
      child = await spawnCardIssue({
        DATABASE_URL: db.url,
        SCHEDULER_ENABLED: 'false',
        OUTBOX_ENABLED: 'false',
        ...LOGGING,
      });
      const url = child.url;
      const owner = await createUser(url);
      const people: PersonalData[] = [];
      const run = await underBackendKills(db.url, (n) => {
        const p = personalData('card', n);
        people.push(p);
        const holder = thirdPartyHolder(p);
        return sendJson(
          `${url}/api/v1/card-issue`,
          'POST',
          {
            request: {
              cardOwner: owner,
              formFactor: 'VIRTUAL',
              cardHolder: { nameless: false, user: holder },
            },
          },
          {},
          15_000,
        );
      });
      await child.stop('SIGTERM');
      const log = child.output();
      expect(run.terminated).toBeGreaterThan(0);
      // The kills did fail requests: the log had its chance to leak.
      expect(Object.keys(run.statuses).some((status) => Number(status) >= 500)).toBe(true);
      expect(log).toMatch(/Database unavailable|error/);
      expect(leaks(log, people)).toEqual([]);
    }, 120_000);

    it('client-registration: no query parameter or driver payload of a client in any log line', async () => {
      child = await spawnClientRegistration({ DATABASE_URL: db.url, ...LOGGING });
      const url = child.url;
      const people: PersonalData[] = [];
      const run = await underBackendKills(db.url, (n) => {
        const p = personalData('reg', n);
        people.push(p);
        const body = client(p);
        return sendJson(`${url}/api/clients`, 'POST', body, {}, 15_000);
      });
      await child.stop('SIGTERM');
      const log = child.output();
      expect(run.terminated).toBeGreaterThan(0);
      expect(Object.keys(run.statuses).some((status) => Number(status) >= 500)).toBe(true);
      expect(leaks(log, people)).toEqual([]);
    }, 120_000);
  },
);
