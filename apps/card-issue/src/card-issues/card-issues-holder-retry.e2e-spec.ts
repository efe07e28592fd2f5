import request from 'supertest';
import {
  createTestDatabase,
  eventually,
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
import { DownstreamProxy } from '../../test/downstream-proxy';
import { aUser, createUser } from '../../test/users.fixture';
import { CreateUserDto } from '../contracts/user.dto';

const API = '/api/v1/card-issue';
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
      },
    });
    proxy.target = t.url;
    owner = await createUser(t.url);
  });

  afterEach(() => {
    proxy.beforeAnswer = () => Promise.resolve();
  });

  afterAll(async () => {
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
    } finally {
      await doomed.stop('SIGKILL');
    }
  });
});
