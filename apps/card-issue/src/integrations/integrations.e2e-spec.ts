import { randomInt } from 'node:crypto';
import request from 'supertest';
import { createTestDatabase, RunningTestService, TestDatabase } from '@bank/shared/testing';
import { startCardIssue } from '../../test/card-issue.harness';
import { aUser } from '../../test/users.fixture';
import { BranchesClient } from './branches/branches.client';
import { OperationsClient } from './operations/operations.client';
import { UsersClient } from './users/users.client';

/**
 * The gateways over real HTTP against the downstream modules of a running app. No base URL is
 * configured: the gateways find the app's own listening address (port 0 here).
 */
describe.each([
  ['no base path', ''],
  ['BASE_PATH=/card-issue', '/card-issue'],
])('gateways against the running downstream services (%s)', (_label, basePath) => {
  let t: RunningTestService;
  let users: UsersClient;
  let branches: BranchesClient;
  let operations: OperationsClient;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'integrations',
      env: { X_SECRET: 'gateway-e2e-secret', BASE_PATH: basePath },
    });
    users = t.app.get(UsersClient);
    branches = t.app.get(BranchesClient);
    operations = t.app.get(OperationsClient);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('creates a user, reads it back and deletes it', async () => {
    const input = aUser();
    const created = await users.createUser(input);
    expect(created).toEqual({
      kind: 'ok',
      value: { ...input, id: expect.stringMatching(/^X[A-Z0-9]{5}$/) },
    });
    if (created.kind !== 'ok') return;
    expect(await users.getUser(created.value.id)).toEqual(created);
    const stored = await request(t.url)
      .get(`${basePath}/user-api/api/v1/users/${created.value.id}`)
      .set('X-secret', 'gateway-e2e-secret');
    expect(stored.status).toBe(200);
    expect(await users.deleteUser(created.value.id)).toEqual({ kind: 'ok', value: undefined });
    expect(await users.getUser(created.value.id)).toEqual({ kind: 'not-found' });
    expect(await users.deleteUser(created.value.id)).toEqual({ kind: 'not-found' });
  });

  it('reports an unknown user as not-found', async () => {
    expect(await users.getUser('XZZZZ9')).toEqual({ kind: 'not-found' });
  });

  it('reports a passport conflict with the service message naming series and number', async () => {
    const input = aUser();
    expect((await users.createUser(input)).kind).toBe('ok');
    const again = await users.createUser(aUser({ passportData: { ...input.passportData } }));
    expect(again).toEqual({
      kind: 'conflict',
      message: expect.stringContaining(
        `series ${input.passportData.series} and number ${input.passportData.number}`,
      ),
    });
  });

  it('finds seeded branches 0001-0005 and not an unknown one', async () => {
    for (const id of ['0001', '0002', '0003', '0004', '0005']) {
      const result = await branches.getBranch(id);
      expect(result).toEqual({
        kind: 'ok',
        value: { id, name: expect.any(String), address: expect.any(String) },
      });
    }
    expect(await branches.getBranch('9999')).toEqual({ kind: 'not-found' });
  });

  it('creates an operation once per request and applies sequenced status updates in order', async () => {
    const input = {
      requestId: `RCARDB23112026${randomInt(1_000_000).toString().padStart(6, '0')}`,
      cardOwner: 'XOWNR1',
      holderUserId: null,
      formFactor: 'PLASTIC' as const,
      status: 'CREATED' as const,
    };
    const created = await operations.createOperation(input);
    expect(created).toEqual({
      kind: 'ok',
      value: {
        ...input,
        id: expect.any(String),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    if (created.kind !== 'ok') return;
    const { id } = created.value;
    expect(await operations.createOperation(input)).toEqual(created);
    expect(await operations.createOperation({ ...input, cardOwner: 'XOTHER' })).toEqual({
      kind: 'conflict',
      message: expect.stringContaining(input.requestId),
    });

    const processing = await operations.updateStatus(id, 'PROCESSING', 1);
    expect(processing).toMatchObject({ kind: 'ok', value: { id, status: 'PROCESSING' } });
    expect(await operations.updateStatus(id, 'PLASTIC_READY', 2)).toMatchObject({
      kind: 'ok',
      value: { status: 'PLASTIC_READY' },
    });
    expect(await operations.updateStatus(id, 'PROCESSING', 1)).toMatchObject({
      kind: 'ok',
      value: { status: 'PLASTIC_READY' },
    });
    expect(await operations.updateStatus(id, 'FAILED')).toMatchObject({
      kind: 'ok',
      value: { status: 'FAILED' },
    });
    expect(
      await operations.updateStatus('3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77', 'READY', 1),
    ).toEqual({ kind: 'not-found' });
  });
});

describe('gateways with a secret the downstream services do not accept', () => {
  let db: TestDatabase;
  let downstream: RunningTestService;
  let caller: RunningTestService;

  beforeAll(async () => {
    db = await createTestDatabase('integrations_secret');
    downstream = await startCardIssue({ db, env: { X_SECRET: 'one' } });
    // A second deployment on the same database whose gateways point at the first one.
    caller = await startCardIssue({
      db,
      env: {
        X_SECRET: 'two',
        USER_API_URL: `${downstream.url}/user-api`,
        BRANCH_API_URL: `${downstream.url}/branch-api/`,
        DOWNSTREAM_RETRIES: '0',
      },
    });
  });

  afterAll(async () => {
    await caller?.close();
    await downstream?.close();
    await db?.drop();
  });

  it('reports the service as unavailable (403), not the user or branch as missing', async () => {
    expect(await caller.app.get(UsersClient).getUser('XABCDE')).toEqual({
      kind: 'unavailable',
      service: 'user service',
      reason: 'answered 403',
    });
    expect(await caller.app.get(BranchesClient).getBranch('0001')).toEqual({
      kind: 'unavailable',
      service: 'branch service',
      reason: 'answered 403',
    });
  });
});
