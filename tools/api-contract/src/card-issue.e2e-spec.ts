import createClient from 'openapi-fetch';
import { RunningTestService } from '@bank/shared/testing';
import { aUser, startCardIssue } from '@bank/card-issue/testing';
import type { BranchApi, CardIssueApi, UserApi } from './lib/api-types';
import { SERVICES, TEST_X_SECRET } from './lib/services';
import { describeSwaggerUi } from './lib/swagger-ui';

type CreateUser = UserApi.components['schemas']['CreateUserDto'];

const service = SERVICES['card-issue'];

/** A valid user of the reference user service: the harness's, checked against the generated type. */
const user: CreateUser = aUser();

describe('card-issue over real HTTP (api-contract)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startCardIssue({ label: 'api_contract_card_issue', env: service.overrides });
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('typed client (openapi-typescript + openapi-fetch)', () => {
    it('creates a user, issues a virtual card for them and reads the request back', async () => {
      const client = createClient<CardIssueApi.paths>({ baseUrl: t.url });
      // The reference user service has its own document, whose server is /user-api.
      const users = createClient<UserApi.paths>({ baseUrl: `${t.url}/user-api` });

      const created = await users.POST('/api/v1/users', {
        body: user,
        headers: { 'X-secret': TEST_X_SECRET },
      });
      expect(created.response.status).toBe(201);
      if (!created.data) throw new Error(`user not created: ${JSON.stringify(created.error)}`);
      const userId = created.data.id;
      expect(userId).toMatch(/^[A-Z0-9]{6}$/);

      const issued = await client.POST('/api/v1/card-issue', {
        body: {
          request: {
            cardOwner: userId,
            formFactor: 'VIRTUAL',
            cardHolder: { userId, nameless: false, embossedName: 'MARIA PETROVA' },
          },
        },
      });
      expect(issued.response.status).toBe(201);
      if (!issued.data) throw new Error(`card not issued: ${JSON.stringify(issued.error)}`);
      expect(issued.data).toMatchObject({ status: 'CREATED', failureReason: null });
      const requestId = issued.data.requestId;
      expect(requestId).toMatch(/^RCARDB\d{14}$/);

      const read = await client.GET('/api/v1/card-issue/{id}', {
        params: { path: { id: requestId } },
      });
      expect(read.response.status).toBe(200);
      expect(read.data).toMatchObject({
        requestId,
        status: 'CREATED',
        cardOwner: userId,
        formFactor: 'VIRTUAL',
        cardHolder: expect.objectContaining({ userId }),
      });
    });

    it('gets 403 from the user service without the X-secret header', async () => {
      const users = createClient<UserApi.paths>({ baseUrl: `${t.url}/user-api` });
      const { response, error } = await users.GET('/api/v1/users');
      expect(response.status).toBe(403);
      expect(error).toMatchObject({ status: 403 });
    });

    it('reads the branches through the branch service document', async () => {
      const branches = createClient<BranchApi.paths>({ baseUrl: `${t.url}/branch-api` });
      const { response, data } = await branches.GET('/api/v1/branches', {
        headers: { 'X-secret': TEST_X_SECRET },
      });
      expect(response.status).toBe(200);
      expect(data?.length).toBeGreaterThan(0);
    });
  });

  describeSwaggerUi(
    () => t.url,
    ['', '/user-api', '/operation-api', '/operation-api-v2', '/branch-api'].map((prefix) => ({
      prefix,
      screenshot: `card-issue${prefix.replace('/', '-')}-swagger-ui`,
    })),
  );
});
