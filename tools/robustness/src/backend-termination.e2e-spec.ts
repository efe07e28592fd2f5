import { Client } from 'pg';
import { HttpResult, sendJson } from './support/http';
import {
  createTestDatabase,
  eventually,
  figureDatabase,
  FiguresTable,
  runsExclusively,
  sleep,
  TestDatabase,
  TestServiceProcess,
} from '@bank/shared/testing';
import {
  createUser,
  selfVirtual,
  spawnCardIssue,
  startWebhookReceiver,
  WebhookReceiver,
} from '@bank/card-issue/testing';
import { registration, spawnClientRegistration } from '@bank/client-registration/testing';

/**
 * PostgreSQL ends the service's connections under load (`pg_terminate_backend`, as a restart,
 * a failover or an administrator does: SQLSTATE 57P01 to every client, checked out or idle).
 * The process must survive every round: the requests caught in it get 503 with Retry-After, the
 * pool reconnects, and every acknowledged write is stored. PostgreSQL only (the embedded PGlite
 * has one session and no backends to end).
 */
const CONNECTIONS = 10;
const ROUNDS = 20;

interface Target {
  service: string;
  spawn(databaseUrl: string): Promise<TestServiceProcess>;
  /** One write: returns the id the service acknowledged, or null. */
  prepare(url: string): Promise<(url: string, n: number) => Promise<HttpResult>>;
  /** The id an acknowledged write answered with. */
  idOf(body: unknown): string;
  /** The ids stored, of those given. */
  stored(databaseUrl: string, ids: string[]): Promise<number>;
}

async function count(databaseUrl: string, sql: string, ids: string[]): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(sql, [ids]);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

const TARGETS: Target[] = [
  {
    service: 'card-issue',
    spawn: (DATABASE_URL) =>
      spawnCardIssue({ DATABASE_URL, SCHEDULER_ENABLED: 'false', DB_POOL_SIZE: '5' }),
    prepare: async (url) => {
      const owner = await createUser(url);
      return (u) => sendJson(`${u}/api/v1/card-issue`, 'POST', selfVirtual(owner), {}, 10_000);
    },
    idOf: (body) => (body as { requestId: string }).requestId,
    stored: (db, ids) =>
      count(db, 'SELECT count(*) AS n FROM card_issue_requests WHERE request_id = ANY($1)', ids),
  },
  {
    service: 'client-registration',
    spawn: (DATABASE_URL) => spawnClientRegistration({ DATABASE_URL, DB_POOL_SIZE: '5' }),
    prepare: async () => (u, n) =>
      sendJson(
        `${u}/api/clients`,
        'POST',
        registration({
          passportData: {
            birthDate: '15-03-1990',
            birthPlace: 'г. Москва',
            issueDate: '20-03-2010',
            series: '4510',
            number: String(100000 + n),
          },
        }),
        {},
        10_000,
      ),
    idOf: (body) => (body as { id: string }).id,
    stored: (db, ids) =>
      count(db, 'SELECT count(*) AS n FROM clients WHERE id::text = ANY($1)', ids),
  },
];

/** Ends every backend of the database but the caller's; how many it ended. */
async function terminateBackends(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

const figures = new FiguresTable('Connections ended by PostgreSQL under load');
afterAll(() => figures.print());

const describeOnPostgres = process.env.TEST_DATABASE_URL ? describe.each : describe.skip.each;

describeOnPostgres(TARGETS)('backends ended under load: $service', (target) => {
  let db: TestDatabase;
  let child: TestServiceProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase(`robust_terminate_${target.service.replace('-', '_')}`);
    child = await target.spawn(db.url);
  }, 120_000);
  afterAll(async () => {
    await child?.stop('SIGKILL');
    await db?.drop();
  });

  it(`stays up through ${ROUNDS} rounds, answers 201 or 503, and stores every 201`, async () => {
    const url = child!.url;
    const write = await target.prepare(url);
    const answers: HttpResult[] = [];
    let running = true;
    let sent = 0;
    const load = Array.from({ length: CONNECTIONS }, async () => {
      while (running && child!.proc.exitCode === null) {
        const n = sent++;
        answers.push(await write(url, n).catch((error: Error) => errorResult(error)));
      }
    });

    /** Fails at once, with the end of its log, when the process is gone. */
    const alive = (): true => {
      if (child!.proc.exitCode === null && child!.proc.signalCode === null) return true;
      throw new Error(`the process exited:\n${child!.output().slice(-3_000)}`);
    };
    let ended = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Let the load take connections again before each round.
      const before = answers.length;
      await eventually(async () => alive() && answers.length >= before + CONNECTIONS, 30_000);
      ended += await terminateBackends(db.url);
      await sleep(50);
    }
    // After the last round the service recovers by itself.
    const lastRound = answers.length;
    await eventually(
      async () => alive() && answers.slice(lastRound).some((answer) => answer.status === 201),
      30_000,
    );
    running = false;
    await Promise.all(load);

    expect(child!.proc.exitCode).toBeNull();
    expect(child!.output()).not.toMatch(/Unhandled 'error' event/);
    const byStatus = new Map<number, number>();
    for (const answer of answers)
      byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
    expect([...byStatus.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);
    for (const answer of answers.filter((a) => a.status === 503)) {
      expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    }
    const acknowledged = answers.filter((a) => a.status === 201).map((a) => target.idOf(a.body));
    expect(await target.stored(db.url, acknowledged)).toBe(acknowledged.length);

    figures.add({
      scenario: `${target.service}: every backend ended ${ROUNDS} times under ${CONNECTIONS} connections of POSTs`,
      database: figureDatabase(db),
      sent: `${answers.length} POSTs (${ended} backends ended)`,
      answered: [...byStatus].map(([status, n]) => `${n} x ${status}`).join(', '),
      stored: `${acknowledged.length} of ${acknowledged.length} acknowledged`,
      lost: 0,
      orphans: 0,
      recovered: 'process alive; 201 again after the last round',
    });
  }, 180_000);
});

/** Runs one statement on the database as the administrator (in a session that may write). */
async function onDatabase(databaseUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SET default_transaction_read_only = off');
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/*
 * A router sends the service's new connections to a server that takes no writes (a standby, or a
 * restarted primary still in recovery, for a moment during a failover): SQLSTATE 25006. Played
 * here by making the database's new sessions read-only and ending the old ones.
 */
(process.env.TEST_DATABASE_URL ? describe : describe.skip)('a read-only server: card-issue', () => {
  let db: TestDatabase;
  let child: TestServiceProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('robust_read_only');
    child = await spawnCardIssue({
      DATABASE_URL: db.url,
      SCHEDULER_ENABLED: 'false',
      DB_POOL_SIZE: '2',
    });
  }, 120_000);
  afterAll(async () => {
    await child?.stop('SIGKILL');
    await db?.drop();
  });

  it('answers 503 with Retry-After naming the database, then 201 once writes are taken', async () => {
    const url = child!.url;
    const owner = await createUser(url);
    const post = () => sendJson(`${url}/api/v1/card-issue`, 'POST', selfVirtual(owner));
    expect((await post()).status).toBe(201);
    const name = new URL(db.url).pathname.slice(1);
    await onDatabase(db.url, `ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
    await terminateBackends(db.url);
    const during = await post();
    expect({
      status: during.status,
      retryAfter: during.headers['retry-after'],
      message: (during.body as { message?: string }).message,
    }).toEqual({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/),
      message: expect.stringMatching(/database/i),
    });
    await onDatabase(db.url, `ALTER DATABASE "${name}" RESET default_transaction_read_only`);
    await terminateBackends(db.url);
    await eventually(async () => (await post()).status === 201, 30_000);
    expect(child!.proc.exitCode).toBeNull();
  }, 120_000);
});

/*
 * The background work on a read-only server: the scheduler's moves, the outbox's and the webhook
 * dispatcher's claims are writes, refused with 25006 on every tick while it lasts. Each is a
 * database outage to them (one line per kind per interval, no stack), nothing is half done, and
 * all of it goes on once writes are taken again.
 */
(process.env.TEST_DATABASE_URL ? describe : describe.skip)(
  'a read-only server: card-issue background work',
  () => {
    const LOG_INTERVAL_MS = 1_000;
    let db: TestDatabase;
    let child: TestServiceProcess | undefined;

    beforeAll(async () => {
      db = await createTestDatabase('robust_read_only_background');
      child = await spawnCardIssue({
        DATABASE_URL: db.url,
        DB_POOL_SIZE: '3',
        LOG_LEVEL: 'warn',
        ERROR_LOG_INTERVAL_MS: String(LOG_INTERVAL_MS),
        SCHEDULER_TICK_MS: '200',
        SCHEDULER_CREATED_DELAY_MS: '1000',
        SCHEDULER_PROCESSING_DELAY_MS: '1000',
        OUTBOX_TICK_MS: '200',
        WEBHOOK_TICK_MS: '200',
        // A message claimed when the backends are ended goes out again when its lease ends.
        OUTBOX_LEASE_MS: '2000',
      });
    }, 120_000);
    afterAll(async () => {
      await child?.stop('SIGKILL');
      await db?.drop();
    });

    it('logs each refused round once per interval without a stack, and finishes the work after', async () => {
      const url = child!.url;
      const owner = await createUser(url);
      const created = await sendJson(`${url}/api/v1/card-issue`, 'POST', selfVirtual(owner));
      expect(created.status).toBe(201);
      const requestId = (created.body as { requestId: string }).requestId;
      const name = new URL(db.url).pathname.slice(1);
      const logBefore = child!.output().length;
      await onDatabase(db.url, `ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
      await terminateBackends(db.url);

      const TITLES = [
        'Scheduled work failed',
        'Outbox delivery round failed',
        'Webhook claim round failed',
      ];
      const lines = () =>
        child!
          .output()
          .slice(logBefore)
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { msg: string; err?: unknown; suppressed?: number });
      // Each kind once, then its count when the interval ends: past the request's due time.
      await eventually(
        async () =>
          TITLES.every(
            (title) =>
              lines().filter((l) => l.msg.startsWith(`${title}: Database unavailable (read-only)`))
                .length >= 2,
          ),
        30_000,
      );
      const logged = lines();
      expect(logged.filter((l) => l.err !== undefined || /Unexpected error/.test(l.msg))).toEqual(
        [],
      );
      for (const title of TITLES) {
        const mine = logged.filter((l) => l.msg.startsWith(title));
        // Ticks every 200 ms: about 5 refusals per interval, each interval one line
        // ("...: 5 more since the last line"). A round in flight when the backends were ended
        // met the connection's end instead: an outage too.
        expect(
          mine.every((l) => /^[^:]+: Database unavailable \((read-only|connection)\)/.test(l.msg)),
        ).toBe(true);
        expect(mine.slice(1).some((l) => (l.suppressed ?? 0) > 0)).toBe(true);
      }
      expect(child!.proc.exitCode).toBeNull();

      await onDatabase(db.url, `ALTER DATABASE "${name}" RESET default_transaction_read_only`);
      await terminateBackends(db.url);
      // The moves refused meanwhile are made, once each, and mirrored to the operation service.
      await eventually(async () => {
        const history = await rowsOf<{ status: string }>(
          db.url,
          `SELECT status FROM card_issue_status_history WHERE request_id = $1 ORDER BY id`,
          [requestId],
        );
        const operation = await rowsOf<{ status: string }>(
          db.url,
          `SELECT status FROM operation_service.operations WHERE request_id = $1`,
          [requestId],
        );
        return history.length === 3 && operation[0]?.status === 'READY';
      }, 30_000);
      const history = await rowsOf<{ status: string }>(
        db.url,
        `SELECT status FROM card_issue_status_history WHERE request_id = $1 ORDER BY id`,
        [requestId],
      );
      expect(history.map((h) => h.status)).toEqual(['CREATED', 'PROCESSING', 'READY']);
      expect(child!.proc.exitCode).toBeNull();
    }, 120_000);
  },
);

/** The rows of one query on the database. */
async function rowsOf<T>(databaseUrl: string, sql: string, params: unknown[]): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/*
 * A failover ends the database's connections between a webhook's 2xx and the statement that
 * records it: the outcome cannot be recorded, the delivery goes out again once its lease ends.
 * That is a known outage, logged without a stack (it was logged with one, as a bug is).
 */
(process.env.TEST_DATABASE_URL ? describe : describe.skip)(
  'a webhook outcome not recorded: card-issue',
  () => {
    let db: TestDatabase;
    let child: TestServiceProcess | undefined;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      db = await createTestDatabase('robust_webhook_outcome');
      receiver = await startWebhookReceiver();
      child = await spawnCardIssue({
        DATABASE_URL: db.url,
        LOG_LEVEL: 'info',
        SCHEDULER_ENABLED: 'false',
        OUTBOX_ENABLED: 'false',
        DB_POOL_SIZE: '2',
        WEBHOOK_TICK_MS: '100',
        WEBHOOK_TIMEOUT_MS: '1000',
        WEBHOOK_ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
      });
    }, 120_000);
    afterAll(async () => {
      await child?.stop('SIGKILL');
      await receiver?.stop();
      await db?.drop();
    });

    it('logs it without a stack, and delivers once the database takes writes', async () => {
      const url = child!.url;
      const name = new URL(db.url).pathname.slice(1);
      const subscribed = await sendJson(`${url}/api/v1/webhook-subscriptions`, 'POST', {
        url: receiver.url,
        eventTypes: ['card_issue.created'],
      });
      expect(subscribed.status).toBe(201);
      receiver.secrets = [(subscribed.body as { secret: string }).secret];
      let struck = false;
      // The first delivery's answer waits until the server takes no writes from the service.
      receiver.behaviour = async () => {
        if (!struck) {
          struck = true;
          await onDatabase(
            db.url,
            `ALTER DATABASE "${name}" SET default_transaction_read_only = on`,
          );
          await terminateBackends(db.url);
        }
        return { status: 204 };
      };
      const owner = await createUser(url);
      const logBefore = child!.output().length;
      expect((await sendJson(`${url}/api/v1/card-issue`, 'POST', selfVirtual(owner))).status).toBe(
        201,
      );
      const lines = () =>
        child!
          .output()
          .slice(logBefore)
          .split('\n')
          .filter((line) => line.includes('Webhook delivery outcome could not be recorded'));
      await eventually(async () => lines().length > 0, 30_000);
      expect(lines().filter((line) => line.includes('"stack"'))).toEqual([]);

      await onDatabase(db.url, `ALTER DATABASE "${name}" RESET default_transaction_read_only`);
      await terminateBackends(db.url);
      await eventually(async () => {
        const state = await queryOne(db.url, 'SELECT state FROM webhook_deliveries');
        return state === 'DELIVERED';
      }, 30_000);
      expect(new Set(receiver.received.map((w) => w.body.id)).size).toBe(1);
      expect(child!.proc.exitCode).toBeNull();
    }, 120_000);
  },
);

/** The first column of the first row, as text. */
async function queryOne(databaseUrl: string, sql: string): Promise<string | undefined> {
  const [row] = await rowsOf<Record<string, string>>(databaseUrl, sql, []);
  return row ? Object.values(row)[0] : undefined;
}

/** A request that got no HTTP answer (the process went away): status 0. */
function errorResult(error: Error): HttpResult {
  return { status: 0, headers: {}, text: error.message, body: undefined };
}

// Heavy and timed: never beside another such file when Jest runs two files at a time.
runsExclusively();
