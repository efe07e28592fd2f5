import { Server, createServer } from 'node:http';
import { Client } from 'pg';
import { HttpResult, sendJson } from './support/http';
import {
  closedPort,
  createTestDatabase,
  eventually,
  RunningTestService,
  sleep,
  TestDatabase,
  TestServiceProcess,
  runsExclusively,
} from '@bank/shared/testing';
import {
  BACKGROUND_OFF,
  createUser,
  SECRET,
  selfPlastic,
  selfVirtual,
  spawnCardIssue,
  startCardIssue,
} from '@bank/card-issue/testing';
import { cardIssueRowCounts } from './support/row-counts';
import { assertClientError, errorShapeProblem } from './support/shapes';

const API = '/api/v1/card-issue';
const realPostgres = !!process.env.TEST_DATABASE_URL;

/** A loopback stand-in for a downstream service: 'hang' never answers, 'slow' answers too late. */
async function startStub(
  mode: () => 'hang' | 'slow' | 'reset',
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const m = mode();
    if (m === 'reset') return req.socket.destroy();
    if (m === 'slow') {
      setTimeout(
        () => res.writeHead(404, { 'content-type': 'application/json' }).end('{}'),
        1_500,
      ).unref();
    }
    // 'hang': keep the socket open and say nothing.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const FAST_FAIL = {
  DOWNSTREAM_TIMEOUT_MS: '300',
  DOWNSTREAM_RETRIES: '1',
  DOWNSTREAM_RETRY_DELAY_MS: '10',
};

// Heavy and timed: never beside another such file when Jest runs two files at a time.
runsExclusively();

function expect503Naming(res: HttpResult, service: string): void {
  expect({ status: res.status, problem: errorShapeProblem(res, 'card-issue') }).toEqual({
    status: 503,
    problem: null,
  });
  expect((res.body as { message: string }).message).toContain(service);
}

describe('faults: the user service down or slow', () => {
  let stubMode: 'hang' | 'slow' | 'reset' = 'hang';
  let stub: Awaited<ReturnType<typeof startStub>>;
  let s: RunningTestService;

  beforeAll(async () => {
    stub = await startStub(() => stubMode);
    s = await startCardIssue({
      label: 'robust_faults_users',
      env: { ...BACKGROUND_OFF, ...FAST_FAIL, USER_API_URL: stub.url },
    });
  });
  afterAll(async () => {
    await s?.close();
    await stub?.close();
  });

  it.each(['hang', 'slow', 'reset'] as const)(
    // hang: never answers; slow: answers after the timeout; reset: drops the connection

    'when it is %s: 503 naming the user service within the timeout, nothing stored, the Idempotency-Key given back',
    async (mode) => {
      stubMode = mode;
      const before = await cardIssueRowCounts(s.dataSource);
      const started = Date.now();
      const first = await sendJson(`${s.url}${API}`, 'POST', selfVirtual('X1A2B3'), {
        'idempotency-key': `down-${mode}`,
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect503Naming(first, 'user service');
      // The key was released: a retry is processed again (and fails the same way), not a 409.
      const retry = await sendJson(`${s.url}${API}`, 'POST', selfVirtual('X1A2B3'), {
        'idempotency-key': `down-${mode}`,
      });
      expect503Naming(retry, 'user service');
      expect(await cardIssueRowCounts(s.dataSource)).toBe(before);
    },
  );

  it('when it refuses connections: 503 naming the user service, nothing stored', async () => {
    const refused = await closedPort(); // nothing listens there
    const other = await startCardIssue({
      label: 'robust_faults_refused',
      env: { ...BACKGROUND_OFF, ...FAST_FAIL, USER_API_URL: `http://127.0.0.1:${refused}` },
    });
    try {
      const before = await cardIssueRowCounts(other.dataSource);
      expect503Naming(
        await sendJson(`${other.url}${API}`, 'POST', selfVirtual('X1A2B3')),
        'user service',
      );
      expect(await cardIssueRowCounts(other.dataSource)).toBe(before);
    } finally {
      await other.close();
    }
  });
});

describe('faults: the branch service hangs', () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  let s: RunningTestService;
  beforeAll(async () => {
    stub = await startStub(() => 'hang');
    s = await startCardIssue({
      label: 'robust_faults_branch',
      env: { ...BACKGROUND_OFF, ...FAST_FAIL, BRANCH_API_URL: stub.url },
    });
  });
  afterAll(async () => {
    await s?.close();
    await stub?.close();
  });

  it('a plastic card to a branch: 503 naming the branch service, nothing stored', async () => {
    const owner = await createUser(s.url);
    const before = await cardIssueRowCounts(s.dataSource);
    expect503Naming(
      await sendJson(`${s.url}${API}`, 'POST', selfPlastic(owner, { toBranch: { id: '0001' } })),
      'branch service',
    );
    expect(await cardIssueRowCounts(s.dataSource)).toBe(before);
    // A virtual card needs no branch and still works.
    expect((await sendJson(`${s.url}${API}`, 'POST', selfVirtual(owner))).status).toBe(201);
  });
});

(realPostgres ? describe : describe.skip)(
  'faults: the database connections are killed under load (real PostgreSQL)',
  () => {
    let s: RunningTestService;
    let owner: string;
    beforeAll(async () => {
      s = await startCardIssue({
        label: 'robust_faults_db',
        env: { ...BACKGROUND_OFF, DB_POOL_SIZE: '4' },
      });
      owner = await createUser(s.url);
    });
    afterAll(async () => {
      await s?.close();
    });

    async function terminateBackends(): Promise<number> {
      const name = new URL(s.db.url).pathname.slice(1);
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

    it('requests fail cleanly during the outage and the service recovers by itself', async () => {
      const acknowledged: string[] = [];
      const failures: HttpResult[] = [];
      let answered = 0;
      const deadline = Date.now() + 4_000;
      const worker = async () => {
        while (Date.now() < deadline) {
          // A hang would fail the test here (15 s per request).
          const res = await sendJson(`${s.url}${API}`, 'POST', selfVirtual(owner), {}, 15_000);
          answered++;
          if (res.status === 201) acknowledged.push((res.body as { requestId: string }).requestId);
          else failures.push(res);
        }
      };
      const load = Promise.all(Array.from({ length: 4 }, worker));
      let terminated = 0;
      for (const at of [800, 1_600, 2_400]) {
        await sleep(at - (4_000 - (deadline - Date.now())));
        terminated += await terminateBackends();
      }
      await load;
      expect(terminated).toBeGreaterThan(0);
      expect(answered).toBeGreaterThan(20);
      for (const failure of failures) {
        // Only server-side failures, each in the error shape without internals.
        expect({
          status: failure.status >= 500,
          problem: errorShapeProblem(failure, 'card-issue'),
        }).toEqual({
          status: true,
          problem: null,
        });
      }
      // Recovery without a restart: new requests succeed and the health check is UP again.
      let recovered: HttpResult | undefined;
      for (let i = 0; i < 50 && recovered?.status !== 201; i++) {
        recovered = await sendJson(`${s.url}${API}`, 'POST', selfVirtual(owner), {}, 15_000);
        if (recovered.status !== 201) await sleep(200);
      }
      expect(recovered?.status).toBe(201);
      const health = await sendJson(`${s.url}/api/health`, 'GET', undefined);
      expect(health.body).toMatchObject({ status: 'UP' });
      // Every acknowledged write is there.
      const [{ n }] = await s.dataSource.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM card_issue_requests WHERE request_id = ANY($1)',
        [acknowledged],
      );
      expect(n).toBe(acknowledged.length);
    }, 90_000);
  },
);

describe('faults: SIGKILL under load', () => {
  let db: TestDatabase;
  let child: TestServiceProcess | undefined;
  beforeAll(async () => {
    db = await createTestDatabase('robust_faults_kill');
  });
  afterAll(async () => {
    await child?.stop('SIGKILL');
    await db?.drop();
  });

  it('loses no write acknowledged with a 2xx', async () => {
    child = await spawnCardIssue({
      DATABASE_URL: db.url,
      X_SECRET: SECRET,
      LOG_LEVEL: 'silent',
      SCHEDULER_ENABLED: 'false',
      OUTBOX_ENABLED: 'false',
    });
    const url = child.url;
    const owner = await createUser(url);
    const acknowledged: string[] = [];
    let unanswered = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        try {
          const res = await sendJson(`${url}${API}`, 'POST', selfVirtual(owner), {}, 10_000);
          if (res.status === 201) acknowledged.push((res.body as { requestId: string }).requestId);
          else assertClientError(res, 'card-issue'); // anything but 201 is a bug here
        } catch {
          unanswered++; // the connection died with the process: not acknowledged
          return;
        }
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, worker));
    // Killed mid-load, once it has acknowledged some writes (not after a fixed time).
    await eventually(async () => acknowledged.length > 10, 30_000, 20);
    await child.stop('SIGKILL');
    stop = true;
    await load;
    expect(acknowledged.length).toBeGreaterThan(10);

    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>(
        'SELECT request_id AS id FROM card_issue_requests WHERE request_id = ANY($1)',
        [acknowledged],
      );
      const stored = new Set(rows.map((r) => r.id));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      // Each stored request is whole: its history entry and outbox message exist too.
      const { rows: broken } = await client.query(
        `SELECT r.request_id FROM card_issue_requests r
          WHERE NOT EXISTS (SELECT 1 FROM card_issue_status_history h WHERE h.request_id = r.request_id)
             OR NOT EXISTS (SELECT 1 FROM outbox_messages o WHERE o.request_id = r.request_id)`,
      );
      expect(broken).toEqual([]);
    } finally {
      await client.end();
    }
    expect(unanswered).toBeGreaterThanOrEqual(0);
  }, 120_000);
});
