import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  createTestDatabase,
  eventually,
  TestDatabase,
  runsExclusively,
} from '@bank/shared/testing';
import { SECRET, startCardIssue } from '../../test/card-issue.harness';
import { selfPlastic, selfVirtual } from '../../test/card-issue-requests.fixture';
import { bulkRequests, seedCardIssues } from '../../test/bulk-requests.fixture';
import { createUser } from '../../test/users.fixture';
import { SchedulerRegistry } from '@nestjs/schedule';
import { STATUS_MOVES_INTERVAL } from './card-issues.scheduler';
import { StatusMovesService } from './status-moves.service';

const API = '/api/v1/card-issue';

const FAST_SCHEDULER = {
  SCHEDULER_ENABLED: 'true',
  SCHEDULER_TICK_MS: '100',
  SCHEDULER_CREATED_DELAY_MS: '300',
  SCHEDULER_PROCESSING_DELAY_MS: '300',
  SCHEDULER_BATCH_SIZE: '25',
  OUTBOX_TICK_MS: '100',
  OUTBOX_RETRY_BASE_MS: '50',
  OUTBOX_RETRY_MAX_MS: '200',
};

/** Runs tasks with at most `limit` in flight. */
async function inParallel<T>(
  count: number,
  limit: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

// Heavy and timed: never beside another such file when Jest runs two files at a time.
runsExclusively();

async function historyByRequest(db: DataSource): Promise<Map<string, string[]>> {
  const rows = await db.query<{ request_id: string; h: string[] }[]>(
    `SELECT request_id, array_agg(status || '/' || source ORDER BY id) AS h FROM card_issue_status_history GROUP BY request_id`,
  );
  return new Map(rows.map((r) => [r.request_id, r.h]));
}

describe('scheduler and outbox at several replicas (e2e)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_scheduler');
  });

  afterAll(async () => {
    await db?.drop();
  });

  const boot = (overrides: Record<string, string> = {}) =>
    startCardIssue({ db, env: { X_SECRET: SECRET, ...FAST_SCHEDULER, ...overrides } });

  it('two instances move every request to its final status exactly once and mirror it to the operation service', async () => {
    // 1,000 on a real PostgreSQL; the embedded one runs one transaction at a time, so fewer there.
    const total = db.kind === 'postgres' ? 1000 : 200;
    const a = await boot();
    const b = await boot();
    try {
      for (const t of [a, b])
        expect(t.app.get(SchedulerRegistry).getIntervals()).toContain(STATUS_MOVES_INTERVAL);
      const moved = [a, b].map((t) => {
        const spy = jest.spyOn(t.app.get(StatusMovesService), 'moveBatch');
        return spy;
      });
      const owner = await createUser(a.url);
      // 16 at a time on PostgreSQL; PGlite answers one transaction at a time for both instances,
      // so 16 waiting there ran a POST's user lookup into its downstream timeout (503) under load.
      const ids = await inParallel(total, db.kind === 'postgres' ? 16 : 4, async (i) => {
        const body = i % 2 ? selfVirtual(owner) : selfPlastic(owner, { toBranch: { id: '0003' } });
        const res = await request(i % 2 ? a.url : b.url)
          .post(API)
          .send(body);
        expect(res.status).toBe(201);
        return res.body.requestId as string;
      });
      const sql = a.app.get(DataSource);
      await eventually(
        async () => {
          const [{ waiting }] = await sql.query(
            `SELECT (SELECT count(*) FROM card_issue_requests WHERE status IN ('CREATED','PROCESSING'))
                + (SELECT count(*) FROM outbox_messages WHERE state = 'PENDING') AS waiting`,
          );
          return Number(waiting) === 0;
        },
        180_000,
        200,
      );

      const history = await historyByRequest(sql);
      for (const [i, id] of ids.entries()) {
        const final = i % 2 ? 'READY' : 'PLASTIC_READY';
        expect([id, history.get(id)]).toEqual([
          id,
          ['CREATED/api', 'PROCESSING/scheduler', `${final}/scheduler`],
        ]);
      }
      // Each move counted once across both replicas.
      let sum = 0;
      for (const spy of moved)
        for (const result of spy.mock.results) sum += await (result.value as Promise<number>);
      expect(sum).toBe(2 * total);

      const operations = await sql.query<
        { request_id: string; status: string; expected: string; copies: string }[]
      >(
        `SELECT o.request_id, o.status, r.status AS expected, count(*) OVER (PARTITION BY o.request_id) AS copies
         FROM operation_service.operations o JOIN card_issue_requests r ON r.request_id = o.request_id`,
      );
      expect(operations).toHaveLength(total);
      for (const op of operations) {
        expect([op.request_id, op.status, Number(op.copies)]).toEqual([
          op.request_id,
          op.expected,
          1,
        ]);
      }
      const [{ messages }] = await sql.query(
        `SELECT count(*)::int AS messages FROM outbox_messages WHERE request_id = ANY($1)`,
        [ids],
      );
      expect(messages).toBe(3 * total);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('an operation service outage delays delivery and loses nothing; the create and then the latest status arrive once', async () => {
    // Serves the real operation service behind the proxy; its own outbox and scheduler stay off,
    // since any replica would deliver the shared outbox.
    const app = await boot({ OUTBOX_ENABLED: 'false', SCHEDULER_ENABLED: 'false' });
    let down = true;
    let refused = 0;
    const forwarded: { requestId: string; kind: string; sequence?: number }[] = [];
    // The only stand-in: a proxy in front of the real operation service that can play dead.
    const proxy: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          if (down) {
            refused += 1;
            res.writeHead(503).end();
            return;
          }
          const body = Buffer.concat(chunks).toString();
          const upstream = await fetch(`${app.url}/operation-api${req.url}`, {
            method: req.method,
            headers: {
              'content-type': 'application/json',
              'x-secret': String(req.headers['x-secret']),
            },
            body: body || undefined,
          });
          const text = await upstream.text();
          if (upstream.ok) {
            const parsed = JSON.parse(body || '{}') as { requestId?: string; sequence?: number };
            const op = JSON.parse(text) as { requestId: string };
            forwarded.push({
              requestId: op.requestId,
              kind: req.method === 'POST' ? 'create' : 'status',
              sequence: parsed.sequence,
            });
          }
          res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
        })();
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = await boot({
      OPERATION_API_URL: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    });
    try {
      const owner = await createUser(app.url);
      const ids: string[] = [];
      for (let i = 0; i < 20; i++)
        ids.push((await request(proxied.url).post(API).send(selfVirtual(owner))).body.requestId);
      const sql = proxied.app.get(DataSource);
      // While the service is down the requests still move to their final status.
      await eventually(
        async () => {
          const [{ n }] = await sql.query(
            `SELECT count(*)::int AS n FROM card_issue_requests WHERE request_id = ANY($1) AND status = 'READY'`,
            [ids],
          );
          return n === ids.length;
        },
        60_000,
        100,
      );
      const [{ ops }] = await sql.query(
        `SELECT count(*)::int AS ops FROM operation_service.operations WHERE request_id = ANY($1)`,
        [ids],
      );
      expect(ops).toBe(0);
      // Deliveries were tried and refused while down (the outbox retries them later).
      await eventually(async () => refused > 0, 30_000, 20);
      down = false;
      await eventually(
        async () => {
          const [{ n }] = await sql.query(
            `SELECT count(*)::int AS n FROM outbox_messages WHERE request_id = ANY($1) AND state = 'PENDING'`,
            [ids],
          );
          return n === 0;
        },
        60_000,
        100,
      );
      for (const id of ids) {
        const delivered = forwarded.filter((f) => f.requestId === id);
        expect([id, delivered.map((f) => `${f.kind}:${f.sequence ?? '-'}`)]).toEqual([
          id,
          // status 2 waited behind the create and was superseded by status 3 (same request).
          ['create:-', 'status:3'],
        ]);
      }
      const finals = await sql.query<{ status: string }[]>(
        `SELECT status FROM operation_service.operations WHERE request_id = ANY($1)`,
        [ids],
      );
      expect(finals.map((o) => o.status)).toEqual(Array(ids.length).fill('READY'));
    } finally {
      await proxied.close();
      await app.close();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('a manual PATCH holding the row is skipped by the scheduler, and wins', async () => {
    const app = await boot({ SCHEDULER_ENABLED: 'false', SCHEDULER_CREATED_DELAY_MS: '0' });
    try {
      const owner = await createUser(app.url);
      const { requestId } = (await request(app.url).post(API).send(selfVirtual(owner))).body;
      const sql = app.app.get(DataSource);
      const moves = app.app.get(StatusMovesService);
      const runner = sql.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        // What PATCH does first: lock the row.
        await runner.query(`SELECT 1 FROM card_issue_requests WHERE request_id = $1 FOR UPDATE`, [
          requestId,
        ]);
        if (db.kind === 'postgres') {
          // SKIP LOCKED: the scheduler passes the locked row over instead of waiting for it.
          expect(await moves.moveBatch()).toBe(0);
        }
        await runner.query(
          `UPDATE card_issue_requests SET status = 'FAILED', status_sequence = status_sequence + 1, updated_at = now() WHERE request_id = $1`,
          [requestId],
        );
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
      expect(await moves.moveBatch()).toBe(0); // FAILED is not a status the scheduler moves
      expect((await request(app.url).get(`${API}/${requestId}`)).body.status).toBe('FAILED');
    } finally {
      await app.close();
    }
  });

  it('switched off, the scheduler moves nothing', async () => {
    const app = await boot({
      SCHEDULER_ENABLED: 'false',
      // The outbox records the new request's operation id under the row's lock; a manual run
      // meeting that lock skips the row (SKIP LOCKED) and would move nothing.
      OUTBOX_ENABLED: 'false',
      SCHEDULER_CREATED_DELAY_MS: '0',
      SCHEDULER_PROCESSING_DELAY_MS: '0',
    });
    try {
      const owner = await createUser(app.url);
      const { requestId } = (await request(app.url).post(API).send(selfVirtual(owner))).body;
      // No timer to tick: with the scheduler on, this interval moves due requests.
      expect(app.app.get(SchedulerRegistry).getIntervals()).not.toContain(STATUS_MOVES_INTERVAL);
      const record = (await request(app.url).get(`${API}/${requestId}`)).body;
      expect(record.status).toBe('CREATED');
      expect(record.history).toHaveLength(1);
      // The same request is due: a manual run moves it.
      expect(await app.app.get(StatusMovesService).moveBatch()).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('moves a fresh burst of 100,000 requests in batches of 500, each within a 1 s statement timeout, while their statuses wait', async () => {
    // Regression of f905daf. Superseding the moved requests' waiting statuses was a join that,
    // planned for a table nobody had analyzed yet (a fresh burst, before autovacuum gets to it),
    // read every waiting status message and compared it with every moved request: a batch's cost
    // grew with the statuses waiting, until a batch ran into the statement timeout and the
    // scheduler stalled (the scheduler bench: 1,500 of 100,000 moves in 5 minutes). Now one index
    // probe per moved request, whatever the statistics. PostgreSQL only: PGlite has no statement
    // timeout to run into.
    if (db.kind !== 'postgres') return;
    const app = await startCardIssue({
      label: 'card_issue_scheduler_burst',
      env: {
        X_SECRET: SECRET,
        SCHEDULER_ENABLED: 'false',
        // The outbox behind: every moved request's status waits.
        OUTBOX_ENABLED: 'false',
        SCHEDULER_CREATED_DELAY_MS: '0',
        SCHEDULER_BATCH_SIZE: '500',
        DB_STATEMENT_TIMEOUT_MS: '1000',
      },
    });
    const runner = app.dataSource.createQueryRunner();
    try {
      await runner.connect();
      // No statistics for the whole test, as after a burst until autovacuum analyzes the table.
      await runner.query('ALTER TABLE outbox_messages SET (autovacuum_enabled = false)');
      await runner.query('SET statement_timeout = 0');
      // 100,000 CREATED requests stored as a POST stores them (the request, its history entry
      // and its waiting outbox message), in one transaction, as the scheduler bench does.
      const n = await seedCardIssues(
        (sql) => runner.query(sql),
        bulkRequests(1, 100_000, 'created'),
      );
      expect(n).toBe(100_000);
      // 40 batches, 20,000 statuses waiting at the end. With the join, each batch compared its 500
      // moved requests with every status already waiting, and one of the later batches ran into
      // the timeout (checked against the old statement: "canceling statement due to statement
      // timeout").
      const moves = app.app.get(StatusMovesService);
      for (let batch = 0; batch < 40; batch++) expect(await moves.moveBatch()).toBe(500);
      const [{ waiting }]: { waiting: number }[] = await runner.query(
        `SELECT count(*)::int AS waiting FROM outbox_messages
         WHERE state = 'PENDING' AND type = 'operation.status'`,
      );
      expect(waiting).toBe(20_000);
    } finally {
      await runner.release();
      await app.close();
    }
  }, 180_000); // 100,000 rows written and moved: minutes on a loaded 2-core machine
});
