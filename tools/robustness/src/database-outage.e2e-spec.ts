import { HttpResult, sendJson } from './support/http';
import { startTcpProxy, TcpProxy } from './support/tcp-proxy';
import { ErrorShape, errorShapeProblem } from './support/shapes';
import { createTestDatabase, sleep, TestDatabase, TestServiceProcess } from '@bank/shared/testing';
import { createUser, selfVirtual, spawnCardIssue } from '@bank/card-issue/testing';
import { registration, spawnClientRegistration } from '@bank/client-registration/testing';

/**
 * The database goes away under a running service (a TCP proxy between them is cut: open
 * connections are reset, new ones refused), on PostgreSQL and on the embedded PGlite alike.
 * Every request must get an honest 503 in the service's error shape with Retry-After, naming
 * the database, and the log must stay O(1) lines per failure kind, not one stack per request.
 */
const FAILING_REQUESTS = 40;

interface Outage {
  service: string;
  shape: ErrorShape;
  /** Words the message must contain: it names the database. */
  names: RegExp;
  spawn(databaseUrl: string): Promise<TestServiceProcess>;
  /** Requests that need the database, prepared while it is up. */
  prepare(url: string): Promise<((url: string) => Promise<HttpResult>)[]>;
}

const QUIET_BACKGROUND = { SCHEDULER_ENABLED: 'false', OUTBOX_ENABLED: 'false' };
const LOG_INTERVAL_MS = 1_500;
const LOGGING = {
  LOG_LEVEL: 'info',
  ERROR_LOG_INTERVAL_MS: String(LOG_INTERVAL_MS),
  DB_POOL_SIZE: '2',
};

const OUTAGES: Outage[] = [
  {
    service: 'card-issue',
    shape: 'card-issue',
    names: /database/i,
    spawn: (DATABASE_URL) => spawnCardIssue({ DATABASE_URL, ...QUIET_BACKGROUND, ...LOGGING }),
    prepare: async (url) => {
      const owner = await createUser(url);
      const created = await sendJson(`${url}/api/v1/card-issue`, 'POST', selfVirtual(owner));
      expect(created.status).toBe(201);
      const id = (created.body as { requestId: string }).requestId;
      return [
        (u) => sendJson(`${u}/api/v1/card-issue/${id}`, 'GET', undefined),
        (u) => sendJson(`${u}/api/v1/card-issue/${id}/status`, 'PATCH', { status: 'FAILED' }),
      ];
    },
  },
  {
    service: 'client-registration',
    shape: 'registration',
    names: /баз[аеы] данных/i,
    spawn: (DATABASE_URL) => spawnClientRegistration({ DATABASE_URL, ...LOGGING }),
    prepare: async (url) => {
      const created = await sendJson(`${url}/api/clients`, 'POST', registration());
      expect(created.status).toBe(201);
      const id = (created.body as { id: string }).id;
      return [
        (u) => sendJson(`${u}/api/clients/${id}`, 'GET', undefined),
        (u) => sendJson(`${u}/api/clients`, 'POST', registration()),
      ];
    },
  },
];

/** The log lines of a process that are not the per-request access lines. */
function nonAccessLines(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => !/"msg":"request (completed|errored)"/.test(line));
}

const logged: Record<string, unknown>[] = [];
afterAll(() =>
  console.log('database outage: log lines per', FAILING_REQUESTS, 'failed requests', logged),
);

describe.each(OUTAGES)('database outage: $service', (outage) => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let child: TestServiceProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase(`robust_outage_${outage.service}`);
    proxy = await startTcpProxy(db.url);
    child = await outage.spawn(proxy.url);
  }, 120_000);
  afterAll(async () => {
    await child?.stop('SIGKILL');
    await proxy?.close();
    await db?.drop();
  });

  it('answers 503 with Retry-After naming the database, logs O(1) lines, and recovers', async () => {
    const url = child!.url;
    const requests = await outage.prepare(url);
    const logBefore = child!.output().length;

    proxy.cut();
    const answers: HttpResult[] = [];
    for (let i = 0; i < FAILING_REQUESTS; i++) {
      answers.push(await requests[i % requests.length](url));
    }
    for (const res of answers) {
      expect({
        status: res.status,
        retryAfter: /^\d+$/.test(res.headers['retry-after'] ?? ''),
        problem: errorShapeProblem(res, outage.shape),
      }).toEqual({ status: 503, retryAfter: true, problem: null });
      expect((res.body as { message: string }).message).toMatch(outage.names);
      expect((res.body as { message: string }).message).not.toMatch(
        /user service|сервис пользовател/i,
      );
    }

    // Not a stack per request: the outage is a handful of lines (one per failure kind at once,
    // then one per interval with the count of the others), none the generic "Unexpected error".
    await sleep(LOG_INTERVAL_MS + 500);
    const lines = nonAccessLines(child!.output().slice(logBefore));
    expect(lines.filter((line) => /Unexpected error/.test(line))).toEqual([]);
    const outageLines = lines
      .filter((line) => /Database unavailable/.test(line))
      .map((line) => JSON.parse(line) as { suppressed: number });
    expect(lines.length).toBeLessThanOrEqual(6);
    expect(outageLines.length).toBeGreaterThan(0);
    // Every failed request is accounted for: logged on its own line or counted in one.
    const counted =
      outageLines.reduce((sum, line) => sum + 1 + line.suppressed, 0) -
      outageLines.filter((line) => line.suppressed > 0).length;
    expect(counted).toBe(FAILING_REQUESTS);

    // The database comes back: the service recovers by itself, no restart.
    proxy.restore();
    const restoredAt = Date.now();
    let recovered: HttpResult | undefined;
    for (let i = 0; i < 50 && recovered?.status !== 200; i++) {
      recovered = await requests[0](url);
      if (recovered.status !== 200) await sleep(200);
    }
    expect(recovered?.status).toBe(200);
    logged.push({
      service: outage.service,
      db: db.kind,
      answers: answers
        .map((a) => a.status)
        .join(',')
        .replace(/^(503,)*503$/, `${FAILING_REQUESTS} x 503`),
      logLines: lines.length,
      counted,
      recoveredMs: Date.now() - restoredAt,
    });
  }, 120_000);
});
