import { FUZZ_RUNS, FUZZ_TIMEOUT_MS, fuzzEndpoint } from './support/fuzz';
import { sendJson } from './support/http';
import { RunningTestService } from '@bank/shared/testing';
import {
  aUser,
  BACKGROUND_OFF,
  courier,
  NOW,
  createUser,
  SECRET,
  selfPlastic,
  selfVirtual,
  startCardIssue,
} from '@bank/card-issue/testing';
import { cardIssueRowCounts } from './support/row-counts';
import { FixedClock } from '@bank/shared/calendar';

const API = '/api/v1/card-issue';
const secret = { 'x-secret': SECRET };

/**
 * Property-based fuzzing of every write endpoint of the card-issue deployment: the card
 * issue API and the user and operation reference services. One app for the whole file.
 */
describe(`card-issue write endpoints under fuzzing (${FUZZ_RUNS} cases each)`, () => {
  let s: RunningTestService;
  let owner: string;
  let other: string;
  let requestId: string;
  let operationId: string;
  let sequence = 1;
  let operationCounter = 0;

  beforeAll(async () => {
    s = await startCardIssue({
      label: 'robust_fuzz_card',
      env: { ...BACKGROUND_OFF },
      clock: new FixedClock(NOW),
    });
    owner = await createUser(s.url);
    other = await createUser(s.url);
    const created = await sendJson(`${s.url}${API}`, 'POST', selfVirtual(owner));
    requestId = (created.body as { requestId: string }).requestId;
    const operation = await sendJson(
      `${s.url}/operation-api/api/v1/operations`,
      'POST',
      newOperation(),
      secret,
    );
    operationId = (operation.body as { id: string }).id;
    if (!requestId || !operationId) throw new Error('fixtures not created');
  });

  afterAll(async () => {
    await s?.close();
  });

  const state = () => cardIssueRowCounts(s.dataSource);

  function newOperation(): Record<string, unknown> {
    operationCounter += 1;
    return {
      requestId: `RCARDB23112026${String(500_000 + operationCounter).padStart(6, '0')}`,
      cardOwner: 'X1A2B3',
      holderUserId: 'X4C5D6',
      formFactor: 'VIRTUAL',
      status: 'CREATED',
    };
  }

  let variant = 0;
  /** The valid bodies the mutations start from, in turn: every shape of request. */
  function validCardIssue(): unknown {
    variant += 1;
    switch (variant % 5) {
      case 0:
        return selfVirtual(owner);
      case 1:
        return selfPlastic(
          owner,
          { courier: courier({ recipient: { userId: other } }) },
          {
            options: { smsNotifications: { userId: other } },
          },
        );
      case 2:
        return selfPlastic(owner, { toBranch: { id: '0001' } });
      case 3:
        return {
          request: {
            cardOwner: owner,
            formFactor: 'VIRTUAL',
            cardHolder: { nameless: false, user: aUser() },
          },
        };
      default:
        return {
          request: {
            cardOwner: owner,
            formFactor: 'PLASTIC',
            cardHolder: { nameless: true },
            delivery: { courier: courier() },
          },
        };
    }
  }

  it(
    'POST /api/v1/card-issue',
    async () => {
      const stats = await fuzzEndpoint({
        send: (body) => sendJson(`${s.url}${API}`, 'POST', body),
        valid: validCardIssue,
        shape: 'card-issue',
        state,
      });
      // The mutations must reach both sides: rejected and accepted bodies.
      expect(stats.statuses[400]).toBeGreaterThan(0);
      expect(stats.statuses[201]).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  // Regression: an own "constructor" key used to make class-transformer throw inside
  // CardIssueRequestPipe (500); the global TextSafetyPipe now refuses it as an unknown field.
  it('POST /api/v1/card-issue with {"constructor": ...} in an unknown object answers 400', async () => {
    const body = {
      request: { ...(selfVirtual(owner).request as object), extra: { constructor: 'x' } },
    };
    const res = await sendJson(`${s.url}${API}`, 'POST', body);
    expect(res.status).toBe(400);
  });

  it(
    'PATCH /api/v1/card-issue/{id}/status',
    async () => {
      const statuses = ['CREATED', 'PROCESSING', 'READY', 'FAILED'];
      let i = 0;
      const stats = await fuzzEndpoint({
        send: (body) => sendJson(`${s.url}${API}/${requestId}/status`, 'PATCH', body),
        valid: () => ({ status: statuses[i++ % statuses.length] }),
        shape: 'card-issue',
        state,
      });
      expect(stats.statuses[400]).toBeGreaterThan(0);
      expect(stats.statuses[200]).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  // Regression: NUL and unpaired surrogates used to reach PostgreSQL (500); TextSafetyPipe
  // refuses them with 400 at the field's path.
  it.each([
    ['an unpaired surrogate', '\ud800'],
    ['a NUL character', 'a\u0000b'],
  ])('POST /user-api/api/v1/users with %s in an address answers 400', async (_name, text) => {
    const address = {
      country: 'Russia',
      region: text,
      city: 'Moscow',
      street: 'Tverskaya',
      building: '1',
    };
    const res = await sendJson(
      `${s.url}/user-api/api/v1/users`,
      'POST',
      aUser({ actualAddress: address }),
      secret,
    );
    expect(res.status).toBe(400);
  });

  it(
    'POST /user-api/api/v1/users',
    async () => {
      const stats = await fuzzEndpoint({
        send: (body) => sendJson(`${s.url}/user-api/api/v1/users`, 'POST', body, secret),
        valid: () => aUser(),
        shape: 'card-issue',
        state,
      });
      expect(stats.statuses[400]).toBeGreaterThan(0);
      expect(stats.statuses[201]).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'POST /operation-api/api/v1/operations',
    async () => {
      const stats = await fuzzEndpoint({
        send: (body) => sendJson(`${s.url}/operation-api/api/v1/operations`, 'POST', body, secret),
        valid: newOperation,
        shape: 'card-issue',
        state,
      });
      expect(stats.statuses[400]).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  // Found by this fuzzer on PostgreSQL: a null sequence was stored as the text 'null' (500).
  it('PATCH /operation-api/api/v1/operations/{id}/status with "sequence": null applies the status', async () => {
    const res = await sendJson(
      `${s.url}/operation-api/api/v1/operations/${operationId}/status`,
      'PATCH',
      { status: 'READY', sequence: null },
      secret,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'READY' });
  });

  it(
    'PATCH /operation-api/api/v1/operations/{id}/status',
    async () => {
      const stats = await fuzzEndpoint({
        send: (body) =>
          sendJson(
            `${s.url}/operation-api/api/v1/operations/${operationId}/status`,
            'PATCH',
            body,
            secret,
          ),
        valid: () => ({ status: 'PROCESSING', sequence: ++sequence }),
        shape: 'card-issue',
        state,
      });
      expect(stats.statuses[400]).toBeGreaterThan(0);
      expect(stats.statuses[200]).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );
});
