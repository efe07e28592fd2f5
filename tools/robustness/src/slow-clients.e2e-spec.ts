import { createServer, Server } from 'node:http';
import { HttpResult, sendJson } from './support/http';
import { ErrorShape, errorShapeProblem } from './support/shapes';
import { slowBodyClient } from './support/slow-client';
import { queryValue } from './support/figures';
import {
  createTestDatabase,
  figureDatabase,
  FiguresTable,
  formatMs,
  RunningTestService,
  sleep,
  TestDatabase,
  TestServiceProcess,
} from '@bank/shared/testing';
import {
  BACKGROUND_OFF,
  createUser,
  selfVirtual,
  spawnCardIssue,
  startCardIssue,
} from '@bank/card-issue/testing';
import {
  registration,
  spawnClientRegistration,
  startClientRegistration,
} from '@bank/client-registration/testing';

/**
 * Slow clients: one that sends its headers and then its body a byte at a time must be answered
 * 408 when HTTP_REQUEST_TIMEOUT_MS is up, and must not hold up a shutdown: on SIGTERM the process
 * ends within SHUTDOWN_TIMEOUT_MS while a normal request in flight still gets its answer.
 */
const REQUEST_TIMEOUT_MS = 1_500;
/** The slow client would need 200 x 250 ms = 50 s to send its body. */
const SLOW_BODY = { length: 200, intervalMs: 250 };

const figures = new FiguresTable('Slow clients and shutdown');

/** Resolves undefined after ms, without keeping Jest alive (the bound of a race). */
const giveUpAfter = (ms: number) =>
  new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref());
afterAll(() => figures.print());

interface Service {
  name: string;
  shape: ErrorShape;
  write: string;
  start(env: Record<string, string>): Promise<RunningTestService>;
}

const SERVICES: Service[] = [
  {
    name: 'card-issue',
    shape: 'card-issue',
    write: '/api/v1/card-issue',
    start: (env) => startCardIssue({ label: 'robust_slow', env: { ...BACKGROUND_OFF, ...env } }),
  },
  {
    name: 'client-registration',
    shape: 'registration',
    write: '/api/clients',
    start: (env) => startClientRegistration({ label: 'robust_slow', env }),
  },
];

describe.each(SERVICES)('slow clients: $name', (service) => {
  let s: RunningTestService;
  beforeAll(async () => {
    s = await service.start({ HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a body trickling in is answered 408 in the error shape once the request timeout is up', async () => {
    const client = slowBodyClient(s.url, service.write, SLOW_BODY.length, SLOW_BODY.intervalMs);
    const started = Date.now();
    // Bounded: the answer must come long before the body would be complete (50 s).
    const answer = await Promise.race([client.ended, giveUpAfter(20_000)]);
    client.stop();
    expect(answer).toBeDefined();
    const res = answer as HttpResult;
    expect({ status: res.status, problem: errorShapeProblem(res, service.shape) }).toEqual({
      status: 408,
      problem: null,
    });
    expect(res.headers.connection).toBe('close');
    // Still sending when it was answered: it was the timeout, not the end of the body.
    expect(client.sent()).toBeLessThan(SLOW_BODY.length - 1);
    figures.add({
      scenario: `${service.name}: body at 1 byte per ${SLOW_BODY.intervalMs} ms, HTTP_REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS}`,
      database: figureDatabase(s.db),
      sent: `1 request, ${client.sent()} of ${SLOW_BODY.length} body bytes`,
      answered: `${res.status} in the error shape, Connection: close, after ${formatMs(Date.now() - started)}`,
      stored: 'nothing',
      lost: 0,
      orphans: 0,
      recovered: '- (health answered at once)',
    });
    // The service is fine.
    expect((await sendJson(`${s.url}/api/health`, 'GET', undefined)).status).toBe(200);
  });
});

/**
 * A user service that answers late: it asks the service's own reference one at once (while
 * that is still up) and holds the answer for `delayMs`.
 */
async function slowUserService(
  delayMs: number,
): Promise<{ url: string; target: { url: string }; close(): Promise<void> }> {
  const target = { url: '' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (delayMs === Infinity) return; // hangs: never answers
      const answered = fetch(`${target.url}/user-api${req.url}`, {
        method: req.method,
        headers: {
          'content-type': 'application/json',
          'x-secret': String(req.headers['x-secret'] ?? ''),
        },
        body: chunks.length ? Buffer.concat(chunks) : undefined,
        signal: AbortSignal.timeout(10_000),
      }).then(async (answer) => ({ status: answer.status, text: await answer.text() }));
      void Promise.all([answered, sleep(delayMs)])
        .then(([{ status, text }]) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(text);
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    target,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const SHUTDOWN_TIMEOUT_MS = 4_000;
/** Long, so that only the shutdown (not the request timeout) can end the slow client. */
const SHUTDOWN_ENV = {
  HTTP_REQUEST_TIMEOUT_MS: '120000',
  SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
};

describe('slow clients: SIGTERM with a slow client connected (own processes)', () => {
  let db: TestDatabase | undefined;
  let child: TestServiceProcess | undefined;
  let users: Awaited<ReturnType<typeof slowUserService>> | undefined;
  beforeEach(async () => {
    db = await createTestDatabase('robust_slow_term');
  });
  afterEach(async () => {
    await child?.stop('SIGKILL');
    await users?.close();
    await db?.drop();
  });

  async function terminate(
    c: TestServiceProcess,
    write: string,
  ): Promise<{ exit: string | undefined; slow: HttpResult; elapsedMs: number }> {
    const slow = slowBodyClient(c.url, write, SLOW_BODY.length, SLOW_BODY.intervalMs);
    await sleep(500); // connected, headers sent, body trickling
    const started = Date.now();
    c.proc.kill('SIGTERM');
    const exit = await Promise.race([c.exited, giveUpAfter(SHUTDOWN_TIMEOUT_MS + 15_000)]);
    const elapsedMs = Date.now() - started;
    const answer = await Promise.race([slow.ended, giveUpAfter(1_000)]);
    slow.stop();
    return {
      exit,
      slow: answer ?? { status: -1, headers: {}, text: '', body: undefined },
      elapsedMs,
    };
  }

  it('card-issue: exits within the deadline; the request in flight is answered, the slow one 503', async () => {
    users = await slowUserService(1_500);
    child = await spawnCardIssue({
      DATABASE_URL: db!.url,
      ...SHUTDOWN_ENV,
      SCHEDULER_ENABLED: 'false',
      OUTBOX_ENABLED: 'false',
      USER_API_URL: users.url,
    });
    users.target.url = child.url;
    const owner = await createUser(child.url);
    // In flight during the SIGTERM: it waits 1.5 s on the user service.
    const inFlight = sendJson(
      `${child.url}/api/v1/card-issue`,
      'POST',
      selfVirtual(owner),
      {},
      20_000,
    );
    await sleep(200);
    const { exit, slow, elapsedMs } = await terminate(child, '/api/v1/card-issue');
    expect(exit).toBe('SIGTERM'); // a clean shutdown (Nest re-raises the signal), not the deadline
    expect((await inFlight).status).toBe(201);
    expect({ status: slow.status, problem: errorShapeProblem(slow, 'card-issue') }).toEqual({
      status: 503,
      problem: null,
    });
    const requestId = ((await inFlight).body as { requestId: string }).requestId;
    const stored = await queryValue<string>(
      db!.url,
      'SELECT count(*) FROM card_issue_requests WHERE request_id = $1',
      [requestId],
    );
    figures.add({
      scenario:
        'card-issue SIGTERM, slow client + a POST in flight (user service answering after 1.5 s)',
      database: figureDatabase(db!),
      sent: '1 POST, 1 slow request',
      answered: `POST 201; slow client ${slow.status} SHUTTING_DOWN`,
      stored: `${stored} request (the POST's)`,
      lost: 1 - Number(stored),
      orphans: 0,
      recovered: `process exited (${exit}) ${formatMs(elapsedMs)} after SIGTERM`,
    });
  }, 120_000);

  it('card-issue: a request stuck past the deadline is answered 503 and the process still exits', async () => {
    users = await slowUserService(Infinity);
    child = await spawnCardIssue({
      DATABASE_URL: db!.url,
      ...SHUTDOWN_ENV,
      SCHEDULER_ENABLED: 'false',
      OUTBOX_ENABLED: 'false',
      USER_API_URL: users.url,
      DOWNSTREAM_TIMEOUT_MS: '120000',
      DOWNSTREAM_RETRIES: '0',
    });
    // The user look-up never ends: this request is still in its handler at the deadline.
    const stuck = sendJson(
      `${child.url}/api/v1/card-issue`,
      'POST',
      selfVirtual('X1A2B3'),
      {},
      60_000,
    );
    await sleep(200);
    const { exit, elapsedMs } = await terminate(child, '/api/v1/card-issue');
    expect(exit).toBe('SIGTERM');
    const answer = await stuck;
    expect({ status: answer.status, problem: errorShapeProblem(answer, 'card-issue') }).toEqual({
      status: 503,
      problem: null,
    });
    expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    figures.add({
      scenario: `card-issue SIGTERM, a request stuck in its handler, SHUTDOWN_TIMEOUT_MS=${SHUTDOWN_TIMEOUT_MS}`,
      database: figureDatabase(db!),
      sent: '1 POST',
      answered: `${answer.status} + Retry-After at the deadline`,
      stored: 'nothing',
      lost: 0,
      orphans: 0,
      recovered: `process exited (${exit}) ${formatMs(elapsedMs)} after SIGTERM`,
    });
  }, 120_000);

  it('client-registration: exits within the deadline with a slow client connected', async () => {
    child = await spawnClientRegistration({ DATABASE_URL: db!.url, ...SHUTDOWN_ENV });
    expect((await sendJson(`${child.url}/api/clients`, 'POST', registration())).status).toBe(201);
    const { exit, slow, elapsedMs } = await terminate(child, '/api/clients');
    expect(exit).toBe('SIGTERM');
    expect({ status: slow.status, problem: errorShapeProblem(slow, 'registration') }).toEqual({
      status: 503,
      problem: null,
    });
    figures.add({
      scenario: 'client-registration SIGTERM, slow client',
      database: figureDatabase(db!),
      sent: '1 slow request',
      answered: `${slow.status} SHUTTING_DOWN`,
      stored: 'nothing',
      lost: 0,
      orphans: 0,
      recovered: `process exited (${exit}) ${formatMs(elapsedMs)} after SIGTERM`,
    });
  }, 120_000);
});
