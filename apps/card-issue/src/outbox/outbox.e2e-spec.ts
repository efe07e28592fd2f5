import { Logger } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  closedPort,
  createTestDatabase,
  eventually,
  RunningTestService,
  TestDatabase,
  runsExclusively,
} from '@bank/shared/testing';
import { startCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';
import { OutboxService } from './outbox.service';
import { runOutboxCommand } from './outbox.command';

const API = '/api/v1/card-issue';
const STATUSES = ['PROCESSING', 'FAILED', 'CREATED', 'READY'];

async function operationStatus(sql: DataSource, requestId: string): Promise<string | null> {
  const rows = await sql.query<{ status: string }[]>(
    `SELECT status FROM operation_service.operations WHERE request_id = $1`,
    [requestId],
  );
  return rows[0]?.status ?? null;
}

async function statesOf(sql: DataSource, requestIds: string[]): Promise<Record<string, number>> {
  const rows = await sql.query<{ state: string; n: number }[]>(
    `SELECT state, count(*)::int AS n FROM outbox_messages WHERE request_id = ANY($1) GROUP BY state`,
    [requestIds],
  );
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

// Heavy and timed: never beside another such file when Jest runs two files at a time.
runsExclusively();

/** Collects the lines the outbox service logs (the harness keeps the logger silent). */
function spyOnLogs(): { lines: { level: string; message: string }[]; restore: () => void } {
  const lines: { level: string; message: string }[] = [];
  const spies = (['warn', 'error'] as const).map((level) =>
    jest.spyOn(Logger.prototype, level).mockImplementation(function (
      this: Logger,
      ...args: unknown[]
    ) {
      const context = (this as unknown as { context?: string }).context;
      if (context === OutboxService.name)
        lines.push({ level, message: String(args.find((a) => typeof a === 'string')) });
    }),
  );
  return { lines, restore: () => spies.forEach((spy) => spy.mockRestore()) };
}

describe('outbox under load and failure (e2e)', () => {
  /** A fresh database per test unless given one (several replicas on one database). */
  const boot = (env: Record<string, string> = {}, db?: TestDatabase) =>
    startCardIssue({
      db,
      label: 'card_issue_outbox',
      env: {
        SCHEDULER_ENABLED: 'false',
        OUTBOX_TICK_MS: '100',
        OUTBOX_RETRY_BASE_MS: '50',
        OUTBOX_RETRY_MAX_MS: '200',
        ...env,
      },
    });

  it('a status storm on a few requests delays no other request, and ends with the latest status delivered', async () => {
    // Under a short statement timeout, as production runs under its own.
    const t = await boot({ DB_STATEMENT_TIMEOUT_MS: '1000' });
    const stop = { now: false };
    try {
      const sql = t.dataSource;
      const owner = await createUser(t.url);
      const busy: string[] = [];
      for (let i = 0; i < 4; i++)
        busy.push((await request(t.url).post(API).send(selfVirtual(owner))).body.requestId);
      const queued: string[] = [];
      for (let i = 0; i < 4; i++)
        queued.push((await request(t.url).post(API).send(selfVirtual(owner))).body.requestId);
      await eventually(async () => (await operationStatus(sql, queued[3])) !== null, 20_000, 50);
      // A deep backlog the claim has to step over: 80,000 waiting messages (20,000 on PGlite) on
      // four requests nobody PATCHes. (A storm itself leaves at most one waiting status per
      // request, since each PATCH supersedes the older ones: put on the PATCHed requests, the
      // first PATCH of each had to supersede 20,000 rows, about 0.6 s on an idle machine, and
      // on a loaded CI machine it ran into the 1 s statement timeout and answered 503.) Written
      // without that timeout, which a loaded machine also exceeded for the INSERT.
      await sql.transaction(async (manager) => {
        await manager.query('SET LOCAL statement_timeout = 0');
        await manager.query(
          `INSERT INTO outbox_messages (request_id, type, payload, next_attempt_at, created_at)
           SELECT r, 'operation.status', jsonb_build_object('requestId', r, 'status', 'CREATED', 'sequence', 1),
                  now(), now()
           FROM unnest($1::text[]) AS r, generate_series(1, $2::int)`,
          [queued, t.db.kind === 'postgres' ? 20_000 : 5_000],
        );
      });

      // 20 clients PATCHing the busy requests (5 each, every PATCH a change) until the probe is
      // done (at most 2,000 PATCHes).
      let sent = 0;
      const storm = Promise.all(
        Array.from({ length: 20 }, async (_, client) => {
          for (let i = 0; !stop.now && sent < 2_000; i++) {
            sent++;
            const id = busy[client % busy.length];
            const r = await request(t.url)
              .patch(`${API}/${id}/status`)
              .send({ status: STATUSES[i % STATUSES.length] });
            expect(r.status).toBe(200);
          }
        }),
      );
      await eventually(async () => sent >= 50, 15_000, 10);
      // Another request, created while the storm runs: its create goes out promptly.
      const probe = (await request(t.url).post(API).send(selfVirtual(owner))).body.requestId;
      try {
        await eventually(async () => (await operationStatus(sql, probe)) === 'CREATED', 15_000, 50);
      } finally {
        stop.now = true;
        await storm;
      }
      expect(sent).toBeGreaterThan(20);

      // The storm's requests end with the operation service holding their latest status, by its
      // sequence (the storm's statuses repeat, so an equal status alone may be an older one), and
      // nothing waiting for them (a delivery is marked DELIVERED after the operation service has
      // answered, so for a moment the service holds a status whose message is still PENDING).
      await eventually(
        async () => {
          const latest = await sql.query<{ delivered: boolean }[]>(
            `SELECT r.status = o.status AND r.status_sequence = o.last_sequence AS delivered
             FROM card_issue_requests r JOIN operation_service.operations o USING (request_id)
             WHERE r.request_id = ANY($1)`,
            [busy],
          );
          const states = await statesOf(sql, busy);
          return (
            latest.length === busy.length &&
            latest.every((row) => row.delivered) &&
            (states.PENDING ?? 0) === 0
          );
        },
        20_000,
        100,
      );
      expect((await statesOf(sql, busy)).DEAD ?? 0).toBe(0);
    } finally {
      stop.now = true;
      await t.close();
    }
  });

  it('a backlog of statuses waits as one message: the older ones are superseded', async () => {
    const t = await boot({ OUTBOX_ENABLED: 'false' });
    try {
      const owner = await createUser(t.url);
      const { requestId } = (await request(t.url).post(API).send(selfVirtual(owner))).body;
      for (let i = 0; i < 30; i++) {
        const res = await request(t.url)
          .patch(`${API}/${requestId}/status`)
          .send({ status: STATUSES[i % STATUSES.length] });
        expect(res.status).toBe(200);
      }
      expect(await statesOf(t.dataSource, [requestId])).toEqual({ PENDING: 2, SUPERSEDED: 29 });
      const outbox = t.app.get(OutboxService);
      await outbox.drain();
      expect(await statesOf(t.dataSource, [requestId])).toEqual({
        DELIVERED: 2,
        SUPERSEDED: 29,
      });
      const { status } = (await request(t.url).get(`${API}/${requestId}`)).body;
      expect(await operationStatus(t.dataSource, requestId)).toBe(status);
    } finally {
      await t.close();
    }
  });

  it('a failed round is logged once, not once per message', async () => {
    const down = await boot({
      OUTBOX_ENABLED: 'false',
      OPERATION_API_URL: `http://127.0.0.1:${await closedPort()}`,
    });
    const logs = spyOnLogs();
    try {
      const owner = await createUser(down.url);
      for (let i = 0; i < 12; i++) await request(down.url).post(API).send(selfVirtual(owner));
      expect(await down.app.get(OutboxService).deliverBatch()).toBe(12);
      expect(logs.lines).toEqual([
        { level: 'warn', message: 'Outbox deliveries failed; retried with backoff' },
      ]);
    } finally {
      logs.restore();
      await down.close();
    }
  });

  it('rounds whose claim fails (statement timeout) are logged once per interval, not once per caller', async () => {
    const t = await boot({ DB_STATEMENT_TIMEOUT_MS: '200' });
    const logs = spyOnLogs();
    // Holds the table so every claim times out (PGlite runs one transaction at a time: there a
    // held lock would stop the test itself).
    const runner = t.dataSource.createQueryRunner();
    try {
      if (t.db.kind !== 'postgres') return;
      await runner.connect();
      await runner.startTransaction();
      await runner.query('LOCK TABLE outbox_messages IN ACCESS EXCLUSIVE MODE');
      const outbox = t.app.get(OutboxService);
      for (let round = 0; round < 3; round++) {
        // Ten changes committed while the round runs, each kicking the outbox, and a timer tick.
        for (let i = 0; i < 10; i++) outbox.kick();
        await expect(outbox.drain()).rejects.toThrow(/statement timeout/);
      }
      await runner.rollbackTransaction();
      await outbox.drain(); // recovers by itself
      // A statement timeout is the database's, a known failure: its kind, and no stack.
      expect(logs.lines).toEqual([
        {
          level: 'error',
          message: 'Outbox delivery round failed: Database unavailable (statement-timeout)',
        },
      ]);
    } finally {
      logs.restore();
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
      await t.close();
    }
  });

  it('gives a message up as DEAD after OUTBOX_MAX_ATTEMPTS, and the operator command redelivers it', async () => {
    const db = await createTestDatabase('card_issue_outbox_dead');
    const down = await boot(
      {
        OUTBOX_ENABLED: 'false',
        OUTBOX_MAX_ATTEMPTS: '2',
        OUTBOX_RETRY_BASE_MS: '10',
        OUTBOX_RETRY_MAX_MS: '10',
        OPERATION_API_URL: `http://127.0.0.1:${await closedPort()}`,
      },
      db,
    );
    const logs = spyOnLogs();
    let up: RunningTestService | undefined;
    try {
      const owner = await createUser(down.url);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await request(down.url).post(API).send(selfVirtual(owner))).body.requestId);
      // A status behind each create: held back while its create is dead.
      for (const id of ids)
        await request(down.url).patch(`${API}/${id}/status`).send({ status: 'PROCESSING' });
      const outbox = down.app.get(OutboxService);
      expect(await outbox.deliverBatch()).toBe(3); // the creates, attempt 1
      // Attempt 2, the last one, in one round once each create's 10 ms back-off has passed.
      await eventually(async () => {
        const [{ due }] = await down.dataSource.query<{ due: number }[]>(
          `SELECT count(*)::int AS due FROM outbox_messages
            WHERE request_id = ANY($1) AND type = 'operation.create' AND next_attempt_at <= now()`,
          [ids],
        );
        return due === 3;
      });
      expect(await outbox.deliverBatch()).toBe(3);
      // The statuses were never tried, so no back-off holds them: the dead creates do.
      expect(await outbox.deliverBatch()).toBe(0);
      expect(await statesOf(down.dataSource, ids)).toEqual({ DEAD: 3, PENDING: 3 });
      expect(logs.lines.filter((l) => l.level === 'error')).toEqual([
        {
          level: 'error',
          message:
            'Outbox messages given up after their last attempt (dead letters; see outbox:redeliver)',
        },
      ]);

      // The operator lists the dead letters and redelivers one request's, then the rest.
      const printed: string[] = [];
      await runOutboxCommand('outbox:dead', [], down.dataSource, (line) => printed.push(line));
      expect(printed.join('\n')).toContain(ids[0]);
      await runOutboxCommand('outbox:redeliver', [ids[0]], down.dataSource, (line) =>
        printed.push(line),
      );
      expect(printed.at(-1)).toBe('Put back for delivery: 1');
      expect(await statesOf(down.dataSource, [ids[0]])).toEqual({ PENDING: 2 });
      await runOutboxCommand('outbox:redeliver', ['--all'], down.dataSource, (line) =>
        printed.push(line),
      );
      expect(printed.at(-1)).toBe('Put back for delivery: 2');

      // A replica that reaches the operation service delivers them in order.
      up = await boot({ OUTBOX_ENABLED: 'false' }, db);
      await up.app.get(OutboxService).drain();
      expect(await statesOf(up.dataSource, ids)).toEqual({ DELIVERED: 6 });
      for (const id of ids) expect(await operationStatus(up.dataSource, id)).toBe('PROCESSING');
    } finally {
      logs.restore();
      await up?.close();
      await down.close();
      await db.drop();
    }
  });

  it('purges delivered and superseded messages after the retention, in batches, and keeps the rest', async () => {
    const t = await boot({
      OUTBOX_ENABLED: 'false',
      OUTBOX_RETENTION_HOURS: '1',
      OUTBOX_PURGE_BATCH_SIZE: '7',
    });
    try {
      const sql = t.dataSource;
      const owner = await createUser(t.url);
      const old = (await request(t.url).post(API).send(selfVirtual(owner))).body.requestId;
      const fresh = (await request(t.url).post(API).send(selfVirtual(owner))).body.requestId;
      for (let i = 0; i < 10; i++)
        await request(t.url)
          .patch(`${API}/${old}/status`)
          .send({ status: STATUSES[i % STATUSES.length] });
      await t.app.get(OutboxService).drain();
      await request(t.url).patch(`${API}/${old}/status`).send({ status: 'READY' }); // waits
      await sql.query(
        `UPDATE outbox_messages SET settled_at = now() - interval '2 hours' WHERE request_id = $1 AND state <> 'PENDING'`,
        [old],
      );
      expect(await statesOf(sql, [old])).toEqual({ DELIVERED: 2, SUPERSEDED: 9, PENDING: 1 });
      expect(await t.app.get(OutboxService).purgeSettled()).toBe(11);
      expect(await statesOf(sql, [old])).toEqual({ PENDING: 1 });
      expect(await statesOf(sql, [fresh])).toEqual({ DELIVERED: 1 }); // within the retention
    } finally {
      await t.close();
    }
  });
});
