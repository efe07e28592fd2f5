import { SpanKind } from '@opentelemetry/api';
import request from 'supertest';
import {
  createTestDatabase,
  eventually,
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
  SECRET,
  spawnCardIssue,
  startCardIssue,
} from '../../test/card-issue.harness';
import { HTTP_SPANS_SCOPE } from '@bank/shared/tracing';
import { InMemoryTracing, registerInMemoryTracing } from '@bank/shared/tracing/testing';
import { DownstreamProxy } from '../../test/downstream-proxy';
import { aUser, createUser } from '../../test/users.fixture';
import { CreateUserDto } from '../contracts/user.dto';
import { HolderSweeper } from './holder-sweeper.service';

const API = '/api/v1/card-issue';
/** Holder creations left this long are swept (HOLDER_SWEEP_AFTER_MS, shortened). */
const SWEEP_AFTER_MS = 1_500;
const USERS = '/user-api/api/v1/users';

/**
 * The third-party holder after a fault between its creation in the user service and the
 * storing of the card request (issue 13, item 1): the user exists, the caller got a 503 or
 * nothing. The caller's retry must succeed with that same user, and no second user or
 * orphan stays behind. The user service is the real reference one; a proxy in front of it
 * holds its answer back (a timeout) or lets the test SIGKILL the caller first.
 */
describe('third-party holder after a timeout or a crash (e2e)', () => {
  let db: TestDatabase;
  let proxy: DownstreamProxy;
  let t: RunningTestService;
  let owner: string;
  let proxyUrl: string;

  const thirdParty = (holder: CreateUserDto) => ({
    request: {
      cardOwner: owner,
      formFactor: 'VIRTUAL',
      cardHolder: { nameless: false, user: holder },
    },
  });

  const usersWithPassport = async (holder: CreateUserDto): Promise<string[]> => {
    const rows: { id: string }[] = await t.dataSource.query(
      'SELECT id FROM user_service.users WHERE passport_series = $1 AND passport_number = $2',
      [holder.passportData.series, holder.passportData.number],
    );
    return rows.map((row) => row.id);
  };

  const figures = new FiguresTable('Third-party holder after a timeout or a crash');
  const database = () => figureDatabase(db);

  /**
   * One row of figures from what the database holds for `holder`: its users, the requests
   * holding them, the acknowledged requests (201) not found (lost) and the users no request
   * holds (orphans).
   */
  const record = async (
    scenario: string,
    holder: CreateUserDto,
    run: { sent: string; answered: string; acknowledged: string[]; recovered: string },
  ): Promise<void> => {
    const users = await usersWithPassport(holder);
    const held: { request_id: string; holder_user_id: string }[] = await t.dataSource.query(
      'SELECT request_id, holder_user_id FROM card_issue_requests WHERE holder_user_id = ANY($1)',
      [users],
    );
    const stored: { request_id: string }[] = await t.dataSource.query(
      'SELECT request_id FROM card_issue_requests WHERE request_id = ANY($1)',
      [run.acknowledged],
    );
    figures.add({
      scenario,
      database: database(),
      sent: run.sent,
      answered: run.answered,
      stored: `${held.length} request(s), ${users.length} user(s)`,
      lost: run.acknowledged.length - stored.length,
      orphans: users.filter((id) => !held.some((row) => row.holder_user_id === id)).length,
      recovered: run.recovered,
    });
  };

  const holderOf = async (requestId: string): Promise<string | null> =>
    (
      await t.dataSource.query(
        'SELECT holder_user_id FROM card_issue_requests WHERE request_id = $1',
        [requestId],
      )
    )[0].holder_user_id;

  beforeAll(async () => {
    db = await createTestDatabase('card_issue_holder_retry');
    proxy = new DownstreamProxy();
    proxyUrl = await proxy.start();
    t = await startCardIssue({
      db,
      env: {
        ...BACKGROUND_OFF,
        USER_API_URL: `${proxyUrl}/user-api`,
        DOWNSTREAM_TIMEOUT_MS: '300',
        DOWNSTREAM_RETRIES: '1',
        DOWNSTREAM_RETRY_DELAY_MS: '10',
        DOWNSTREAM_REQUEST_BUDGET_MS: '1000',
        HOLDER_SWEEP_AFTER_MS: String(SWEEP_AFTER_MS),
      },
    });
    proxy.target = t.url;
    owner = await createUser(t.url);
  });

  afterEach(() => {
    proxy.beforeAnswer = () => Promise.resolve();
  });

  const sweep = () => t.app.get(HolderSweeper).sweep();
  /**
   * Every pending creation becomes older than HOLDER_SWEEP_AFTER_MS, as if that time had passed:
   * the sweeper compares the database's clock with touched_at, so moving touched_at back stands
   * for the wait without waiting.
   */
  const ageCreations = () =>
    t.dataSource.query(
      `UPDATE card_issue_holder_creations SET touched_at = touched_at - $1 * interval '1 millisecond'`,
      [SWEEP_AFTER_MS + 100],
    );
  const pendingCreations = async (): Promise<number> =>
    Number(
      (await t.dataSource.query('SELECT count(*) AS n FROM card_issue_holder_creations'))[0].n,
    );
  /** A card request whose user creation is answered after the caller's timeout: 503, the user exists. */
  const lostCreation = async (holder: CreateUserDto, key?: string): Promise<string> => {
    proxy.beforeAnswer = async ({ method, url }) => {
      if (method === 'POST' && url.startsWith('/user-api/api/v1/users')) await sleep(700);
    };
    const post = request(t.url).post(API);
    if (key) void post.set('Idempotency-Key', key);
    expect((await post.send(thirdParty(holder))).status).toBe(503);
    await eventually(async () => (await usersWithPassport(holder)).length === 1, 10_000);
    proxy.beforeAnswer = () => Promise.resolve();
    return (await usersWithPassport(holder))[0];
  };

  afterAll(async () => {
    figures.print();
    await t?.close();
    await proxy?.stop();
    await db?.drop();
  });

  it('a user created but answered too late: 503, and the retry with the same key gets CREATED with that user', async () => {
    const holder = aUser();
    // Every answer to a user creation comes after the caller's timeout (the user is created).
    proxy.beforeAnswer = async ({ method, url }) => {
      if (method === 'POST' && url.startsWith('/user-api/api/v1/users')) await sleep(700);
    };
    const first = await request(t.url)
      .post(API)
      .set('Idempotency-Key', 'holder-timeout-1')
      .send(thirdParty(holder));
    expect(first.status).toBe(503);
    expect(first.body.message).toContain('user service');
    await eventually(async () => (await usersWithPassport(holder)).length === 1, 10_000);
    const [created] = await usersWithPassport(holder);

    proxy.beforeAnswer = () => Promise.resolve();
    const retry = await request(t.url)
      .post(API)
      .set('Idempotency-Key', 'holder-timeout-1')
      .send(thirdParty(holder));
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ status: 'CREATED' });
    expect(await holderOf(retry.body.requestId)).toBe(created);
    expect(await usersWithPassport(holder)).toEqual([created]);
    await record(
      '`POST /users` answered after the timeout, retry with the same Idempotency-Key',
      holder,
      {
        sent: '2 POSTs',
        answered: `${first.status}, then ${retry.status} ${retry.body.status} with that user`,
        acknowledged: [retry.body.requestId],
        recovered: "the client's retry",
      },
    );
  });

  it('the same without an Idempotency-Key: the retry of the same body finds the same user', async () => {
    const holder = aUser();
    proxy.beforeAnswer = async ({ method, url }) => {
      if (method === 'POST' && url.startsWith('/user-api/api/v1/users')) await sleep(700);
    };
    expect((await request(t.url).post(API).send(thirdParty(holder))).status).toBe(503);
    await eventually(async () => (await usersWithPassport(holder)).length === 1, 10_000);
    const [created] = await usersWithPassport(holder);

    proxy.beforeAnswer = () => Promise.resolve();
    const retry = await request(t.url).post(API).send(thirdParty(holder));
    expect(retry.body).toMatchObject({ status: 'CREATED' });
    expect(await holderOf(retry.body.requestId)).toBe(created);
    expect(await usersWithPassport(holder)).toEqual([created]);
    await record('Same without an Idempotency-Key, retry of the same body', holder, {
      sent: '2 POSTs',
      answered: `503, then ${retry.status} ${retry.body.status} with that user`,
      acknowledged: [retry.body.requestId],
      recovered: "the client's retry",
    });
  });

  it('another request for a holder whose passport another user holds still ends FAILED', async () => {
    const holder = aUser();
    await request(t.url).post(USERS).set('X-secret', SECRET).send(holder).expect(201);
    const res = await request(t.url).post(API).send(thirdParty(holder));
    expect(res.body.status).toBe('FAILED');
    expect(res.body.failureReason).toMatch(/could not be created/);
  });

  it('a process killed between the user creation and the storing: the retry elsewhere gets CREATED with that user', async () => {
    const holder = aUser();
    // A replica as its own process on the same database, its user service behind the proxy.
    const doomed: TestServiceProcess = await spawnCardIssue(
      {
        DATABASE_URL: db.url,
        X_SECRET: SECRET,
        ...(BACKGROUND_OFF as Record<string, string>),
        USER_API_URL: `${proxyUrl}/user-api`,
      },
      60_000,
    );
    try {
      // The user service has created the user; the replica dies before it hears so.
      proxy.beforeAnswer = async ({ method, url, status }) => {
        if (method === 'POST' && url.startsWith('/user-api/api/v1/users') && status === 201) {
          await doomed.stop('SIGKILL');
        }
      };
      const lost = await request(doomed.url)
        .post(API)
        .send(thirdParty(holder))
        .then(
          (res) => res.status,
          () => 'no answer',
        );
      expect(lost).toBe('no answer');
      expect(await doomed.exited).toBe('SIGKILL');
      const [created] = await usersWithPassport(holder);
      expect(created).toBeDefined();

      // The client retries the same request on a surviving replica.
      proxy.beforeAnswer = () => Promise.resolve();
      const retry = await request(t.url).post(API).send(thirdParty(holder));
      expect(retry.body).toMatchObject({ status: 'CREATED' });
      expect(await holderOf(retry.body.requestId)).toBe(created);
      expect(await usersWithPassport(holder)).toEqual([created]);
      await record(
        'Process SIGKILLed after the user service created the holder, retry on another replica',
        holder,
        {
          sent: '2 POSTs',
          answered: `${lost}, then ${retry.status} ${retry.body.status} with that user`,
          acknowledged: [retry.body.requestId],
          recovered: "the client's retry",
        },
      );
    } finally {
      await doomed.stop('SIGKILL');
    }
  });

  describe('holders whose request was never retried (HolderSweeper)', () => {
    beforeEach(async () => {
      // Creations other tests left (e.g. a FAILED holder's) must not count here.
      await ageCreations();
      await sweep();
    });

    it('a stored request leaves no pending creation; its holder is never swept', async () => {
      const holder = aUser();
      const res = await request(t.url).post(API).send(thirdParty(holder)).expect(201);
      expect(res.body.status).toBe('CREATED');
      expect(await pendingCreations()).toBe(0);
      await ageCreations();
      await sweep();
      expect(await usersWithPassport(holder)).toEqual([await holderOf(res.body.requestId)]);
    });

    it('a FAILED request (passport held by another user) leaves no pending creation', async () => {
      const holder = aUser();
      await request(t.url).post(USERS).set('X-secret', SECRET).send(holder).expect(201);
      const res = await request(t.url).post(API).send(thirdParty(holder));
      expect(res.body.status).toBe('FAILED');
      expect(await pendingCreations()).toBe(0);
    });

    it('the user of a request not retried is kept within HOLDER_SWEEP_AFTER_MS and deleted after it', async () => {
      const holder = aUser();
      await lostCreation(holder, 'holder-never-retried');
      expect(await pendingCreations()).toBe(1);

      expect(await sweep()).toEqual({ deleted: 0, settled: 0 });
      expect(await usersWithPassport(holder)).toHaveLength(1);

      await ageCreations();
      const sweepStarted = Date.now();
      expect(await sweep()).toEqual({ deleted: 1, settled: 0 });
      const swept = Date.now() - sweepStarted;
      expect(await usersWithPassport(holder)).toEqual([]);
      expect(await pendingCreations()).toBe(0);
      await record('User created, answer lost, the client never retries', holder, {
        sent: '1 POST',
        answered: '503',
        acknowledged: [],
        recovered: `swept ${formatMs(swept)} into the first sweep past HOLDER_SWEEP_AFTER_MS (${formatMs(SWEEP_AFTER_MS)} here, 1 h by default)`,
      });
    });

    describe('traced (the SDK and the HTTP instrumentation registered in this process, spans kept in memory)', () => {
      let tracing: InMemoryTracing;

      beforeAll(() => {
        tracing = registerInMemoryTracing({ http: true });
      });

      afterAll(() => tracing.stop());

      it('sweeps each holder under a root span of its own, with its create and delete at the user service as client spans', async () => {
        const holder = aUser();
        const userId = await lostCreation(holder, 'holder-sweep-traced');
        await ageCreations();
        tracing.memory.reset();
        expect(await sweep()).toEqual({ deleted: 1, settled: 0 });

        const spans = tracing.memory.getFinishedSpans();
        const roots = spans.filter((s) => s.name === 'holder sweep');
        expect(roots).toHaveLength(1);
        const [root] = roots;
        expect(root.parentSpanContext).toBeUndefined();
        const calls = spans.filter(
          (s) =>
            s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === root.spanContext().spanId,
        );
        expect(
          calls.map((s) => [
            s.instrumentationScope.name,
            s.name,
            s.attributes['url.full'],
            s.attributes['http.response.status_code'],
          ]),
        ).toEqual([
          [HTTP_SPANS_SCOPE, 'POST', `${proxyUrl}${USERS}`, expect.any(Number)],
          [HTTP_SPANS_SCOPE, 'DELETE', `${proxyUrl}${USERS}/${userId}`, expect.any(Number)],
        ]);
        expect(calls.every((s) => s.spanContext().traceId === root.spanContext().traceId)).toBe(
          true,
        );
      });
    });

    it('a retry after the sweep succeeds with a new user', async () => {
      const holder = aUser();
      const swept = await lostCreation(holder, 'holder-late-retry');
      await ageCreations();
      expect((await sweep()).deleted).toBe(1);

      const retry = await request(t.url)
        .post(API)
        .set('Idempotency-Key', 'holder-late-retry')
        .send(thirdParty(holder));
      expect(retry.status).toBe(201);
      expect(retry.body.status).toBe('CREATED');
      const [created] = await usersWithPassport(holder);
      expect(created).not.toBe(swept);
      expect(await holderOf(retry.body.requestId)).toBe(created);
      expect(await pendingCreations()).toBe(0);
      await record('Retry after the sweep deleted the first user', holder, {
        sent: '2 POSTs (first lost, retry after the sweep)',
        answered: `503, then ${retry.status} ${retry.body.status} with a new user`,
        acknowledged: [retry.body.requestId],
        recovered: "the client's retry",
      });
    });

    it('a retry while its holder is being swept gets 503 and stores nothing; after the sweep it succeeds', async () => {
      const holder = aUser();
      await lostCreation(holder);
      await ageCreations();
      // The sweeper's delete is held back while the client retries.
      let retried: Promise<request.Response> | undefined;
      proxy.beforeAnswer = async ({ method }) => {
        if (method === 'DELETE' && !retried) {
          retried = request(t.url)
            .post(API)
            .send(thirdParty(holder))
            .then((r) => r);
          await retried;
        }
      };
      expect((await sweep()).deleted).toBe(1);
      const during = await retried!;
      expect(during.status).toBe(503);
      expect(during.body.message).toMatch(/being cleaned up/);
      expect(during.headers['retry-after']).toMatch(/^\d+$/);

      proxy.beforeAnswer = () => Promise.resolve();
      const after = await request(t.url).post(API).send(thirdParty(holder));
      expect(after.body.status).toBe('CREATED');
      expect(await usersWithPassport(holder)).toEqual([await holderOf(after.body.requestId)]);
      await record('Retry while the sweep deletes its user', holder, {
        sent: '3 POSTs (lost, during the sweep, after it)',
        answered: `503, ${during.status} HOLDER_CLEANUP_IN_PROGRESS + Retry-After, then ${after.status} ${after.body.status}`,
        acknowledged: [after.body.requestId],
        recovered: 'the retry after Retry-After',
      });
    });

    it('a retry that comes back before the sweep keeps its user (the creation is touched again)', async () => {
      const holder = aUser();
      const created = await lostCreation(holder, 'holder-retried-in-time');
      await ageCreations();
      const retry = await request(t.url)
        .post(API)
        .set('Idempotency-Key', 'holder-retried-in-time')
        .send(thirdParty(holder));
      expect(retry.body.status).toBe('CREATED');
      await ageCreations();
      expect(await sweep()).toEqual({ deleted: 0, settled: 0 });
      expect(await usersWithPassport(holder)).toEqual([created]);
    });

    it('a user service that is down leaves the creation for a later run', async () => {
      const holder = aUser();
      await lostCreation(holder);
      await ageCreations();
      // Every answer to the sweeper's create comes after its timeout.
      proxy.beforeAnswer = async ({ method }) => {
        if (method === 'POST') await sleep(700);
      };
      expect(await sweep()).toEqual({ deleted: 0, settled: 0 });
      expect(await pendingCreations()).toBe(1);
      proxy.beforeAnswer = () => Promise.resolve();
      // Its lease (60 s) still holds it; a later run after the lease takes it again.
      await t.dataSource.query(
        `UPDATE card_issue_holder_creations SET sweep_until = clock_timestamp() - interval '1 second'`,
      );
      expect((await sweep()).deleted).toBe(1);
      expect(await usersWithPassport(holder)).toEqual([]);
      await record('Sweep while the user service is down', holder, {
        sent: '1 POST (lost), 2 sweeps',
        answered: '503; first sweep left the creation leased, the next deleted the user',
        acknowledged: [],
        recovered: 'the first sweep after the lease (60 s) and the outage end',
      });
    });

    it('two sweepers at once delete each abandoned user once', async () => {
      const holders = [aUser(), aUser(), aUser()];
      for (const holder of holders) await lostCreation(holder);
      await ageCreations();
      const runs = await Promise.all([sweep(), sweep()]);
      expect(runs[0].deleted + runs[1].deleted).toBe(3);
      for (const holder of holders) expect(await usersWithPassport(holder)).toEqual([]);
      expect(await pendingCreations()).toBe(0);
    });
  });
});
