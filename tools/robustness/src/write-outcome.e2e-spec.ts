import { Client } from 'pg';
import { HttpResult, sendJson } from './support/http';
import { serviceBehindProxy } from './support/service-behind-proxy';
import { queryValue } from './support/figures';
import { ErrorShape, expectedUnavailable, unavailableAnswer } from './support/shapes';
import { eventually, runsExclusively, TestServiceProcess } from '@bank/shared/testing';
import { createUser, selfVirtual, spawnCardIssue } from '@bank/card-issue/testing';
import { registration, spawnClientRegistration } from '@bank/client-registration/testing';

/**
 * A write whose database connection is lost while its statement runs (PostgreSQL ends the
 * backend, as a failover does: 57P01) may or may not be stored, and its 503 says so, telling
 * the client to retry with the same Idempotency-Key; a write refused before anything was sent
 * (the database out of reach) keeps the plain 503. The statement is held in flight by a lock a
 * test session takes on the table the write inserts into. PostgreSQL only (PGlite has one
 * session and no backend to end).
 */
interface Writer {
  service: string;
  shape: ErrorShape;
  /** The table the write inserts into, and the rows stored for an Idempotency-Key. */
  table: string;
  stored(databaseUrl: string, key: string): Promise<number>;
  spawn(databaseUrl: string): Promise<TestServiceProcess>;
  /** A POST that stores a new row, with an Idempotency-Key. */
  prepare(url: string): Promise<(url: string, key: string) => Promise<HttpResult>>;
  plain: string;
  unknown: RegExp;
}

const WRITERS: Writer[] = [
  {
    service: 'card-issue',
    shape: 'card-issue',
    table: 'card_issue_requests',
    stored: async (db, key) =>
      Number(
        await queryValue<string>(
          db,
          `SELECT count(*)::text FROM card_issue_requests r
             JOIN card_issue_idempotency_keys k ON k.response_body LIKE '%' || r.request_id || '%'
            WHERE k.key = $1`,
          [key],
        ),
      ),
    spawn: (DATABASE_URL) =>
      spawnCardIssue({
        DATABASE_URL,
        SCHEDULER_ENABLED: 'false',
        OUTBOX_ENABLED: 'false',
        WEBHOOKS_ENABLED: 'false',
        DB_POOL_SIZE: '3',
      }),
    prepare: async (url) => {
      const owner = await createUser(url);
      return (u, key) =>
        sendJson(`${u}/api/v1/card-issue`, 'POST', selfVirtual(owner), { 'idempotency-key': key });
    },
    plain: 'The database is unavailable; retry later',
    unknown: /may or may not have been stored.*same Idempotency-Key/,
  },
  {
    service: 'client-registration',
    shape: 'registration',
    table: 'clients',
    stored: async (db, key) =>
      Number(
        await queryValue<string>(
          db,
          `SELECT count(*)::text FROM clients c
             JOIN client_idempotency_keys k ON k.response_body LIKE '%' || c.id::text || '%'
            WHERE k.key = $1`,
          [key],
        ),
      ),
    spawn: (DATABASE_URL) =>
      spawnClientRegistration({ DATABASE_URL, SCHEDULER_ENABLED: 'false', DB_POOL_SIZE: '3' }),
    prepare: async () => {
      const body = registration();
      return (u, key) => sendJson(`${u}/api/clients`, 'POST', body, { 'idempotency-key': key });
    },
    plain: 'База данных временно недоступна, повторите запрос позже',
    unknown: /изменения могли сохраниться.*тем же Idempotency-Key/,
  },
];

const describeOnPostgres = process.env.TEST_DATABASE_URL ? describe.each : describe.skip.each;

async function readiness(url: string): Promise<number> {
  const res = await sendJson(`${url}/api/health/ready`, 'GET', undefined).catch(() => null);
  return res?.status ?? 0;
}

describeOnPostgres(WRITERS)('the outcome of a write: $service', (writer) => {
  const s = serviceBehindProxy(`robust_outcome_${writer.service.replace('-', '_')}`, (proxy) =>
    writer.spawn(proxy.url),
  );

  it('is unknown when the connection is lost under the write, and a retry with the key stores it once', async () => {
    const url = s.child!.url;
    const write = await writer.prepare(url);
    const key = `outcome-${writer.service}-${Date.now()}`;
    const locker = new Client({ connectionString: s.db.url });
    await locker.connect();
    try {
      // SHARE blocks the write's INSERT (ROW EXCLUSIVE), not its reads.
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${writer.table} IN SHARE MODE`);
      const answer = write(url, key);
      let pid = 0;
      await eventually(async () => {
        const { rows } = await locker.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = $1
              AND wait_event_type = 'Lock'`,
          [writer.service],
        );
        pid = rows[0]?.pid ?? 0;
        return pid !== 0;
      }, 8_000);
      await locker.query('SELECT pg_terminate_backend($1)', [pid]);
      const during = await answer;
      expect(unavailableAnswer(during, writer.shape)).toEqual(expectedUnavailable(writer.unknown));
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    // Here the write was not committed (its transaction died with its backend): the retry with
    // the same key stores it, once.
    const retried = await write(url, key);
    expect(retried.status).toBe(201);
    expect(await writer.stored(s.db.url, key)).toBe(1);
    expect(s.child!.proc.exitCode).toBeNull();
  }, 60_000);

  it('stays the plain 503 when the database refuses before anything is sent', async () => {
    const url = s.child!.url;
    const write = await writer.prepare(url);
    s.proxy.cut();
    try {
      // The pool has dropped the connections the cut reset once readiness fails.
      await eventually(async () => (await readiness(url)) === 503, 15_000);
      const refused = await write(url, `refused-${writer.service}-${Date.now()}`);
      expect(unavailableAnswer(refused, writer.shape)).toEqual(expectedUnavailable(writer.plain));
    } finally {
      s.proxy.restore();
    }
    await eventually(async () => (await readiness(url)) === 200, 30_000);
  }, 60_000);
});

// Spawns processes: never beside another such file when Jest runs two files at a time.
runsExclusively();
