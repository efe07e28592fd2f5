import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  createTestDatabase,
  eventually,
  figureDatabase,
  FiguresTable,
  formatMs,
  RunningTestService,
  TestDatabase,
  TestServiceProcess,
  runsExclusively,
} from '@bank/shared/testing';
import { SECRET, spawnCardIssue, startCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';

const API = '/api/v1/card-issue';

// Heavy and timed: never beside another such file when Jest runs two files at a time.
runsExclusively();

/** A user service that takes requests and never answers: the replica holding the key hangs there. */
async function hangingUserService(): Promise<{
  url: string;
  seen: () => number;
  close(): Promise<void>;
}> {
  const pending: IncomingMessage[] = [];
  const server: Server = createServer((req) => void pending.push(req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen: () => pending.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Idempotency-Key held by a replica that is killed (e2e)', () => {
  let db: TestDatabase;
  let survivor: RunningTestService;
  let killed: TestServiceProcess | undefined;
  let users: Awaited<ReturnType<typeof hangingUserService>>;
  const figures = new FiguresTable('Idempotency-Key held by a killed replica');

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_idempotency_kill');
    survivor = await startCardIssue({ db, env: { X_SECRET: SECRET, SCHEDULER_ENABLED: 'false' } });
    users = await hangingUserService();
  });

  afterAll(async () => {
    figures.print();
    await killed?.stop('SIGKILL');
    await survivor?.close();
    await users?.close();
    await db?.drop();
  });

  it('the retry on another replica succeeds within seconds of the SIGKILL, once, without polling in a loop', async () => {
    const owner = await createUser(survivor.url);
    const body = selfVirtual(owner);
    killed = await spawnCardIssue(
      {
        DATABASE_URL: db.url,
        X_SECRET: SECRET,
        SCHEDULER_ENABLED: 'false',
        USER_API_URL: users.url,
        DOWNSTREAM_TIMEOUT_MS: '60000',
        IDEMPOTENCY_LEASE_MS: '2000',
      },
      60_000,
    );
    // The first attempt takes the key on the replica, which then waits on the user service.
    const first = request(killed.url)
      .post(API)
      .set('Idempotency-Key', 'kill-1')
      .send(body)
      .then(
        (res) => res.status,
        () => 'no answer',
      );
    await eventually(async () => users.seen() > 0, 30_000, 20);
    killed.proc.kill('SIGKILL');
    await killed.exited;
    const killedAt = Date.now();
    expect(await first).toBe('no answer');

    const keyStatements: string[] = [];
    const query = survivor.dataSource.query.bind(survivor.dataSource);
    const spy = jest.spyOn(survivor.dataSource, 'query').mockImplementation((sql, ...rest) => {
      if (sql.includes('card_issue_idempotency_keys')) keyStatements.push(sql);
      return query(sql, ...rest);
    });
    let retry: request.Response;
    try {
      retry = await request(survivor.url).post(API).set('Idempotency-Key', 'kill-1').send(body);
    } finally {
      spy.mockRestore();
    }
    const recoveredMs = Date.now() - killedAt;
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ status: 'CREATED' });
    // Within the killed holder's 2 s lease a waiter looks 7 times at most (50 ms doubling), then
    // the response is stored (a lease renewal may come in between); 25 ms polling made ~160.
    expect(keyStatements.length).toBeLessThanOrEqual(10);
    const listed = await request(survivor.url).get(`${API}/client/${owner}`);
    expect(listed.body).toHaveLength(1);
    const replay = await request(survivor.url)
      .post(API)
      .set('Idempotency-Key', 'kill-1')
      .send(body);
    expect(replay.text).toBe(retry.text);
    figures.add({
      scenario:
        'Replica SIGKILLed while holding an Idempotency-Key (lease 2 s); retry with the key on another replica, then a repeat',
      database: figureDatabase(db),
      sent: '3 POSTs, one key',
      answered: `no answer (killed); ${retry.status} ${retry.body.status} (${keyStatements.length} key statements while waiting); repeat ${replay.status} replayed, same bytes`,
      stored: `${(listed.body as unknown[]).length} request`,
      lost: 0,
      orphans: 0,
      recovered: `the retry answered ${formatMs(recoveredMs)} after the SIGKILL`,
    });
  });
});
