import { Logger } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { CoreModule } from '@bank/shared/nest';
import { closedPort } from '@bank/shared/testing';
import { json, StubServer } from '../../test/stub-server';
import { aUser } from '../../test/users.fixture';
import { CardIssueEnvironment, SERVICE_NAME } from '../config/environment.config';
import { BranchesClient } from './branches/branches.client';
import { IntegrationsModule } from './integrations.module';
import { OperationsClient } from './operations/operations.client';
import { NewUser, UsersClient } from './users/users.client';

/*
 * The gateways against a local stub server (node:http on 127.0.0.1, port 0). This stub is the
 * only mock in the tests of this service: it stands for a downstream service that is slow,
 * failing or gone, which the real modules cannot be made to be on demand.
 */

const SECRET = 'stub-secret-value';
const OPERATION_ID = '3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77';

/** A valid user (the harness's builder), as the gateway sends it on. */
const newUser: NewUser = aUser();

async function gatewaysAgainst(
  urls: { user: string; branch: string; operation: string },
  overrides: Record<string, string> = {},
): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      CoreModule.forRoot({
        serviceName: SERVICE_NAME,
        environment: CardIssueEnvironment,
        overrides: {
          LOG_LEVEL: 'silent',
          X_SECRET: SECRET,
          USER_API_URL: urls.user,
          BRANCH_API_URL: urls.branch,
          OPERATION_API_URL: urls.operation,
          DOWNSTREAM_TIMEOUT_MS: '200',
          DOWNSTREAM_RETRIES: '2',
          DOWNSTREAM_RETRY_DELAY_MS: '10',
          // These cases count every attempt; the breaker has its own tests
          // (gateway-breaker.integration-spec.ts, card-issues-downstream-budget.e2e-spec.ts).
          DOWNSTREAM_BREAKER_FAILURES: '0',
          ...overrides,
        },
      }),
      IntegrationsModule,
    ],
  }).compile();
  return moduleRef.init();
}

describe('downstream gateways against a stub server', () => {
  const stub = new StubServer();
  let moduleRef: TestingModule;
  let users: UsersClient;
  let branches: BranchesClient;
  let operations: OperationsClient;
  let warn: jest.SpyInstance;
  let error: jest.SpyInstance;

  beforeAll(async () => {
    const url = await stub.start();
    moduleRef = await gatewaysAgainst({
      user: `${url}/user-api`,
      branch: `${url}/branch-api`,
      operation: `${url}/operation-api`,
    });
    users = moduleRef.get(UsersClient);
    branches = moduleRef.get(BranchesClient);
    operations = moduleRef.get(OperationsClient);
  });

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => {
    // Whatever happened, the secret never reached a log line.
    for (const call of [...warn.mock.calls, ...error.mock.calls]) {
      expect(JSON.stringify(call)).not.toContain(SECRET);
    }
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    await moduleRef?.close();
    await stub.stop();
  });

  describe('answers', () => {
    it('sends the configured X-secret to the configured base URL and returns the user', async () => {
      stub.reset((_req, res) => json(res, 200, { ...newUser, id: 'XABCDE' }));
      const result = await users.getUser('XABCDE');
      expect(result).toEqual({ kind: 'ok', value: { ...newUser, id: 'XABCDE' } });
      expect(stub.hits).toEqual([
        {
          method: 'GET',
          url: '/user-api/api/v1/users/XABCDE',
          secret: SECRET,
          body: '',
          port: expect.any(Number),
        },
      ]);
    });

    it('posts the user as JSON and returns the stored one', async () => {
      stub.reset((_req, res, hit) => json(res, 201, { ...JSON.parse(hit.body), id: 'XNEW01' }));
      const result = await users.createUser(newUser);
      expect(result).toEqual({ kind: 'ok', value: { ...newUser, id: 'XNEW01' } });
      expect(stub.hits[0]).toMatchObject({ method: 'POST', url: '/user-api/api/v1/users' });
    });

    it('maps 404 to not-found and 409 to conflict with the service message', async () => {
      stub.reset((_req, res) => json(res, 404, { status: 404, message: 'User XABCDE not found' }));
      expect(await users.getUser('XABCDE')).toEqual({ kind: 'not-found' });
      expect(stub.hits).toHaveLength(1);

      const message = 'A user with passport series 4510 and number 123456 is already registered';
      stub.reset((_req, res) => json(res, 409, { status: 409, message }));
      expect(await users.createUser(newUser)).toEqual({ kind: 'conflict', message });
    });

    it('does not call the service for an id that cannot exist', async () => {
      stub.reset((_req, res) => json(res, 500, {}));
      expect(await users.getUser('bad')).toEqual({ kind: 'not-found' });
      expect(await branches.getBranch('12')).toEqual({ kind: 'not-found' });
      expect(await operations.updateStatus('nope', 'READY', 1)).toEqual({ kind: 'not-found' });
      expect(stub.hits).toHaveLength(0);
    });

    it('treats a rejected secret (403) and a missing route as the service being unavailable', async () => {
      stub.reset((_req, res) =>
        json(res, 403, { message: 'X-secret header is invalid or missing' }),
      );
      expect(await branches.getBranch('0001')).toEqual({
        kind: 'unavailable',
        service: 'branch service',
        reason: 'answered 403',
      });
      expect(stub.hits).toHaveLength(1);

      stub.reset((_req, res) => json(res, 404, { message: 'No route for GET /x' }));
      expect(await branches.getBranch('0001')).toMatchObject({
        kind: 'unavailable',
        service: 'branch service',
      });
    });

    it('treats an answer that is not a JSON object as unavailable', async () => {
      stub.reset((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));
      expect(await branches.getBranch('0001')).toMatchObject({
        kind: 'unavailable',
        service: 'branch service',
      });
    });

    it('reuses one kept-alive connection for consecutive calls', async () => {
      stub.reset((_req, res) => json(res, 200, { id: '0001', name: 'n', address: 'a' }));
      for (let i = 0; i < 5; i++) expect((await branches.getBranch('0001')).kind).toBe('ok');
      // Connections are reused: fewer client ports than requests (one each without keep-alive).
      // A connection lost under load is retried on a new one, hence not exactly one port.
      const ports = new Set(stub.hits.map((h) => h.port));
      expect(stub.hits.length).toBeGreaterThanOrEqual(5);
      expect(ports.size).toBeLessThan(stub.hits.length);
      expect(ports.size).toBeLessThanOrEqual(2);
    });
  });

  describe('5xx', () => {
    it('retries an idempotent GET, then gives up as unavailable naming the service', async () => {
      stub.reset((_req, res) => json(res, 500, { message: 'boom' }));
      const result = await users.getUser('XABCDE');
      expect(result).toEqual({
        kind: 'unavailable',
        service: 'user service',
        reason: 'answered 500',
      });
      expect(stub.hits).toHaveLength(3); // 1 + DOWNSTREAM_RETRIES
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('user service unavailable'));
    });

    it('recovers when a retry succeeds', async () => {
      stub.reset((_req, res) =>
        stub.hits.length < 2
          ? json(res, 503, {})
          : json(res, 200, { id: '0002', name: 'n', address: 'a' }),
      );
      expect(await branches.getBranch('0002')).toEqual({
        kind: 'ok',
        value: { id: '0002', name: 'n', address: 'a' },
      });
      expect(stub.hits).toHaveLength(2);
    });

    it('never retries the creation of a user', async () => {
      stub.reset((_req, res) => json(res, 500, {}));
      expect(await users.createUser(newUser)).toEqual({
        kind: 'unavailable',
        service: 'user service',
        reason: 'answered 500',
      });
      expect(stub.hits).toHaveLength(1);
    });

    it('retries the creation of an operation, which is idempotent by requestId', async () => {
      stub.reset((_req, res) => json(res, 502, {}));
      const result = await operations.createOperation({
        requestId: 'RCARDB23112026000001',
        cardOwner: 'XABCDE',
        holderUserId: null,
        formFactor: 'VIRTUAL',
        status: 'CREATED',
      });
      expect(result).toMatchObject({ kind: 'unavailable', service: 'operation service' });
      expect(stub.hits).toHaveLength(3);
      expect(JSON.parse(stub.hits[0].body)).toEqual({
        requestId: 'RCARDB23112026000001',
        cardOwner: 'XABCDE',
        holderUserId: null,
        formFactor: 'VIRTUAL',
        status: 'CREATED',
      });
    });

    it('retries a status update only when it carries a sequence', async () => {
      stub.reset((_req, res) => json(res, 500, {}));
      expect(await operations.updateStatus(OPERATION_ID, 'READY')).toMatchObject({
        kind: 'unavailable',
      });
      expect(stub.hits).toHaveLength(1);
      expect(JSON.parse(stub.hits[0].body)).toEqual({ status: 'READY' });

      stub.reset((_req, res) => json(res, 500, {}));
      expect(await operations.updateStatus(OPERATION_ID, 'READY', 7)).toMatchObject({
        kind: 'unavailable',
      });
      expect(stub.hits).toHaveLength(3);
      expect(stub.hits.map((h) => h.method)).toEqual(['PATCH', 'PATCH', 'PATCH']);
      expect(JSON.parse(stub.hits[2].body)).toEqual({ status: 'READY', sequence: 7 });
      expect(stub.hits[0].url).toBe(`/operation-api/api/v1/operations/${OPERATION_ID}/status`);
    });
  });

  describe('slow or silent services', () => {
    it('gives up on a service that answers too slowly, after its retries', async () => {
      const timers: NodeJS.Timeout[] = [];
      stub.reset((_req, res) => {
        timers.push(setTimeout(() => json(res, 200, { id: '0001' }), 5_000));
      });
      try {
        const result = await branches.getBranch('0001');
        expect(result).toEqual({
          kind: 'unavailable',
          service: 'branch service',
          reason: 'no answer within 200 ms',
        });
        expect(stub.hits).toHaveLength(3);
      } finally {
        timers.forEach(clearTimeout);
      }
    });

    it('gives up on a service that never answers a create, without retrying it', async () => {
      stub.reset(() => undefined); // accepts the request and stays silent
      const result = await users.createUser(newUser);
      expect(result).toEqual({
        kind: 'unavailable',
        service: 'user service',
        reason: 'no answer within 200 ms',
      });
      expect(stub.hits).toHaveLength(1);
    });

    it('treats a dropped connection as unavailable', async () => {
      stub.reset((req) => req.socket.destroy());
      expect(await users.getUser('XABCDE')).toMatchObject({
        kind: 'unavailable',
        service: 'user service',
      });
      expect(stub.hits).toHaveLength(3);
    });
  });
});

describe('downstream gateways when nothing listens', () => {
  let moduleRef: TestingModule;

  beforeAll(async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    moduleRef = await gatewaysAgainst(
      { user: `${url}/user-api`, branch: `${url}/branch-api`, operation: `${url}/operation-api` },
      { DOWNSTREAM_RETRIES: '1' },
    );
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await moduleRef?.close();
  });

  it('reports connection refused as unavailable for every gateway', async () => {
    expect(await moduleRef.get(UsersClient).getUser('XABCDE')).toEqual({
      kind: 'unavailable',
      service: 'user service',
      reason: 'connection refused',
    });
    expect(await moduleRef.get(UsersClient).createUser(newUser)).toEqual({
      kind: 'unavailable',
      service: 'user service',
      reason: 'connection refused',
    });
    expect(await moduleRef.get(BranchesClient).getBranch('0001')).toEqual({
      kind: 'unavailable',
      service: 'branch service',
      reason: 'connection refused',
    });
    expect(await moduleRef.get(OperationsClient).updateStatus(OPERATION_ID, 'FAILED', 1)).toEqual({
      kind: 'unavailable',
      service: 'operation service',
      reason: 'connection refused',
    });
  });
});

describe('a dead downstream service in the logs', () => {
  it('is one line at the first failure, then one line with the count, not a line per call', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const moduleRef = await gatewaysAgainst(
      { user: `${url}/user-api`, branch: `${url}/branch-api`, operation: `${url}/operation-api` },
      { DOWNSTREAM_RETRIES: '0', ERROR_LOG_INTERVAL_MS: '60000' },
    );
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const lines = () =>
      warn.mock.calls.map(([message]) => String(message)).filter((m) => m.startsWith('branch'));
    try {
      for (let i = 0; i < 6; i++) {
        expect(await moduleRef.get(BranchesClient).getBranch('0001')).toMatchObject({
          kind: 'unavailable',
        });
      }
      expect(lines()).toHaveLength(1);
      expect(lines()[0]).toMatch(/^branch service unavailable: GET .* connection refused$/);
      await moduleRef.close(); // writes the count still pending
      expect(lines()).toHaveLength(2);
      expect(lines()[1]).toMatch(/^branch service unavailable: 5 more failed calls since/);
    } finally {
      warn.mockRestore();
    }
  });
});
