import request from 'supertest';
import { Client } from 'pg';
import {
  createTestDatabase,
  pgBouncerTestsRun,
  eventually,
  PgBouncer,
  startPgBouncer,
  TestDatabase,
  TestServiceProcess,
} from '@bank/shared/testing';
import { SECRET, spawnCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';

const API = '/api/v1/card-issue';

/**
 * Two card-issue replicas whose every request, scheduler tick and outbox delivery goes through
 * a real PgBouncer in transaction pooling mode, with fewer server connections than the
 * replicas' pools hold (so transactions of different clients share them); only the
 * migrations (a session-level advisory lock) take the direct URL.
 */
(pgBouncerTestsRun() ? describe : describe.skip)(
  'card-issue behind PgBouncer in transaction pooling mode (e2e)',
  () => {
    let db: TestDatabase;
    let bouncer: PgBouncer;
    let sql: Client;
    const replicas: TestServiceProcess[] = [];

    beforeAll(async () => {
      db = await createTestDatabase('card_issue_pgbouncer');
      bouncer = await startPgBouncer(db.url, 4);
    });

    afterAll(async () => {
      for (const replica of replicas)
        if (replica.proc.exitCode === null && replica.proc.signalCode === null)
          replica.proc.kill('SIGKILL');
      await sql?.end();
      await bouncer?.stop();
      await db?.drop();
    });

    function spawnReplica(): Promise<TestServiceProcess> {
      return spawnCardIssue(
        {
          DATABASE_URL: bouncer.pooledUrl(db.url),
          DATABASE_DIRECT_URL: db.url,
          DB_POOL_SIZE: '8',
          X_SECRET: SECRET,
          LOG_LEVEL: 'silent',
          SCHEDULER_ENABLED: 'true',
          SCHEDULER_TICK_MS: '100',
          SCHEDULER_CREATED_DELAY_MS: '500',
          SCHEDULER_PROCESSING_DELAY_MS: '500',
          SCHEDULER_BATCH_SIZE: '10',
          OUTBOX_TICK_MS: '100',
          OUTBOX_LEASE_MS: '1000',
          OUTBOX_RETRY_BASE_MS: '50',
          OUTBOX_RETRY_MAX_MS: '200',
        },
        60_000,
      );
    }

    it('issues cards, moves each request once at two replicas and delivers the outbox', async () => {
      // Both start together: the migrations run once, under the advisory lock on the direct URL.
      replicas.push(...(await Promise.all([spawnReplica(), spawnReplica()])));
      const [a, b] = replicas;
      sql = new Client({ connectionString: bouncer.pooledUrl(db.url) });
      await sql.connect();

      const owner = await createUser(a.url);
      const ids: string[] = [];
      const posts = Array.from({ length: 60 }, (_, i) =>
        request(i % 2 ? a.url : b.url)
          .post(API)
          .set('Idempotency-Key', `pgbouncer-${i}`)
          .send(selfVirtual(owner)),
      );
      for (const res of await Promise.all(posts)) {
        expect([res.status, res.body.status]).toEqual([201, 'CREATED']);
        ids.push(res.body.requestId as string);
      }
      // A replay of one key through the pool gives the stored answer.
      const replay = await request(b.url)
        .post(API)
        .set('Idempotency-Key', 'pgbouncer-0')
        .send(selfVirtual(owner));
      expect(replay.status).toBe(201);
      expect(ids).toContain(replay.body.requestId);

      await eventually(
        async () => {
          const { rows } = await sql.query(
            `SELECT (SELECT count(*) FROM card_issue_requests WHERE status <> 'READY')
              + (SELECT count(*) FROM outbox_messages WHERE state = 'PENDING') AS waiting`,
          );
          return Number(rows[0].waiting) === 0;
        },
        60_000,
        200,
      );
      const { rows } = await sql.query(
        `SELECT request_id, array_agg(status || '/' || source ORDER BY id) AS h
         FROM card_issue_status_history WHERE request_id = ANY($1) GROUP BY request_id`,
        [ids],
      );
      expect(rows).toHaveLength(ids.length);
      for (const row of rows as { request_id: string; h: string[] }[])
        expect(row.h).toEqual(['CREATED/api', 'PROCESSING/scheduler', 'READY/scheduler']);
      const ops = await sql.query(
        `SELECT count(DISTINCT request_id)::int AS n, count(*)::int AS total
         FROM operation_service.operations WHERE request_id = ANY($1) AND status = 'READY'`,
        [ids],
      );
      expect(ops.rows[0]).toEqual({ n: ids.length, total: ids.length });

      const read = await request(a.url).get(`${API}/${ids[1]}`);
      expect([read.status, read.body.status]).toEqual([200, 'READY']);
      // The migrations' advisory lock was let go on the direct connection, not left behind
      // on a pooled server connection (this database's: other test files share the server).
      const locks = await sql.query(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory'
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      expect(locks.rows[0].n).toBe(0);
    });
  },
);
