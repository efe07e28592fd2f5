import request from 'supertest';
import { Client } from 'pg';
import {
  createTestDatabase,
  eventually,
  TestDatabase,
  TestServiceProcess,
  runsExclusively,
} from '@bank/shared/testing';
import { SECRET, spawnCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';

const API = '/api/v1/card-issue';

// Heavy and timed: never beside another such file when Jest runs two files at a time.
runsExclusively();

/** Starts card-issue as its own process (what a Kubernetes replica is), on a free port. */
function spawnInstance(databaseUrl: string, logLevel = 'silent'): Promise<TestServiceProcess> {
  return spawnCardIssue(
    {
      DATABASE_URL: databaseUrl,
      X_SECRET: SECRET,
      LOG_LEVEL: logLevel,
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

describe('card-issue replicas as processes (e2e)', () => {
  let db: TestDatabase;
  let sql: Client;

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_processes');
  });

  afterAll(async () => {
    await sql?.end();
    await db?.drop();
  });

  it('after a SIGKILL of one replica mid-run the other finishes the work; SIGTERM exits cleanly', async () => {
    // On PostgreSQL both start together: the migrations run once, under the advisory lock.
    // PGlite is one backend session for every connection, so an advisory lock cannot keep a
    // second process out; two processes on one PGlite exist only here, so they start in turn.
    const [a, b] =
      db.kind === 'postgres'
        ? await Promise.all([spawnInstance(db.url), spawnInstance(db.url, 'info')])
        : [await spawnInstance(db.url), await spawnInstance(db.url, 'info')];
    try {
      sql = new Client({ connectionString: db.url });
      await sql.connect();
      const owner = await createUser(a.url);
      const ids: string[] = [];
      for (let i = 0; i < 150; i++) {
        const res = await request(i % 2 ? a.url : b.url)
          .post(API)
          .send(selfVirtual(owner));
        expect(res.status).toBe(201);
        ids.push(res.body.requestId as string);
      }
      await eventually(
        async () => {
          const { rows } = await sql.query(
            `SELECT count(*)::int AS n FROM card_issue_requests WHERE status <> 'CREATED'`,
          );
          return rows[0].n > 0;
        },
        30_000,
        20,
      );
      a.proc.kill('SIGKILL');
      await a.exited;

      await eventually(
        async () => {
          const { rows } = await sql.query(
            `SELECT (SELECT count(*) FROM card_issue_requests WHERE status <> 'READY')
                + (SELECT count(*) FROM outbox_messages WHERE state = 'PENDING') AS waiting`,
          );
          return Number(rows[0].waiting) === 0;
        },
        90_000,
        200,
      );
      const { rows } = await sql.query(
        `SELECT request_id, array_agg(status || '/' || source ORDER BY id) AS h FROM card_issue_status_history
         WHERE request_id = ANY($1) GROUP BY request_id`,
        [ids],
      );
      expect(rows).toHaveLength(ids.length);
      for (const row of rows as { request_id: string; h: string[] }[]) {
        expect([row.request_id, row.h]).toEqual([
          row.request_id,
          ['CREATED/api', 'PROCESSING/scheduler', 'READY/scheduler'],
        ]);
      }
      const ops = await sql.query(
        `SELECT count(DISTINCT request_id)::int AS n, count(*)::int AS total FROM operation_service.operations
         WHERE request_id = ANY($1) AND status = 'READY'`,
        [ids],
      );
      expect(ops.rows[0]).toEqual({ n: ids.length, total: ids.length });

      // SIGTERM: Nest closes the app (ticks stop, the batch and delivery in flight finish, the
      // server and the database close), then lets the signal end the process.
      b.proc.kill('SIGTERM');
      expect(await b.exited).toBe('SIGTERM');
      expect(b.output()).toContain('"msg":"Database closed"');
    } finally {
      for (const i of [a, b])
        if (i.proc.exitCode === null && i.proc.signalCode === null) i.proc.kill('SIGKILL');
    }
  });
});
