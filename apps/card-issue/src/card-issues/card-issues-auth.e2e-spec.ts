import request from 'supertest';
import { FixedClock } from '@bank/shared/calendar';
import {
  closedPort,
  rejectedTokens,
  RunningTestService,
  startTestTokenIssuer,
  TestTokenIssuer,
} from '@bank/shared/testing';
import { BACKGROUND_OFF, SECRET, startCardIssue } from '../../test/card-issue.harness';
import { NOW, selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';

const API = '/api/v1/card-issue';
const READ = 'card-issue:read';
const WRITE = 'card-issue:write';
const STATUS = 'card-issue:status';
const clock = new FixedClock(NOW);

/** AUTH_MODE=jwt through the real HTTP stack: the JWKS served by a local issuer. */
describe('card issue API behind bearer JWT (e2e)', () => {
  let issuer: TestTokenIssuer;
  let t: RunningTestService;
  let owner: string;
  let requestId: string;

  beforeAll(async () => {
    issuer = await startTestTokenIssuer();
    t = await startCardIssue({
      label: 'card_issue_auth',
      env: { ...BACKGROUND_OFF, ...issuer.env() },
      clock,
    });
    owner = await createUser(t.url);
    const created = await request(t.url)
      .post(API)
      .set('Authorization', `Bearer ${await issuer.sign({ scope: WRITE })}`)
      .send(selfVirtual(owner));
    expect(created.status).toBe(201);
    requestId = created.body.requestId;
  });

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  const bearer = async (scope: string) => `Bearer ${await issuer.sign({ scope })}`;

  /** Every protected operation, with a body that passes validation. */
  const operations = () => [
    { name: 'POST', scope: WRITE, call: () => request(t.url).post(API).send(selfVirtual(owner)) },
    { name: 'GET by id', scope: READ, call: () => request(t.url).get(`${API}/${requestId}`) },
    {
      name: 'GET by client',
      scope: READ,
      call: () => request(t.url).get(`${API}/client/${owner}`),
    },
    {
      name: 'PATCH status',
      scope: STATUS,
      call: () => request(t.url).patch(`${API}/${requestId}/status`).send({ status: 'PROCESSING' }),
    },
  ];

  it('refuses every operation without a token: 401 in the card-issue shape with a Bearer challenge', async () => {
    for (const operation of operations()) {
      const res = await operation.call();
      expect({ operation: operation.name, status: res.status }).toEqual({
        operation: operation.name,
        status: 401,
      });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="card-issue"');
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 401,
        error: 'Unauthorized',
        message: 'A bearer token is required (Authorization: Bearer <token>)',
      });
    }
  });

  it.each([
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['the bare token', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln'],
  ])('takes %s as no token (401)', async (_name, header) => {
    const res = await request(t.url).get(`${API}/${requestId}`).set('Authorization', header);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="card-issue"');
  });

  it('passes every operation with a valid token carrying its scope', async () => {
    const expected: Record<string, number> = {
      POST: 201,
      'GET by id': 200,
      'GET by client': 200,
      'PATCH status': 200,
    };
    for (const operation of operations()) {
      const res = await operation.call().set('Authorization', await bearer(operation.scope));
      expect({ operation: operation.name, status: res.status }).toEqual({
        operation: operation.name,
        status: expected[operation.name],
      });
    }
  });

  it('answers 403 insufficient_scope when the token lacks the operation scope', async () => {
    for (const operation of operations()) {
      const others = [READ, WRITE, STATUS].filter((scope) => scope !== operation.scope);
      const res = await operation.call().set('Authorization', await bearer(others.join(' ')));
      expect({ operation: operation.name, status: res.status }).toEqual({
        operation: operation.name,
        status: 403,
      });
      expect(res.headers['www-authenticate']).toBe(
        `Bearer realm="card-issue", error="insufficient_scope", scope="${operation.scope}"`,
      );
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 403,
        error: 'Forbidden',
        message: `The bearer token lacks the scope this operation requires: ${operation.scope}`,
      });
    }
  });

  it('reads the scopes from scp as well (a list)', async () => {
    const token = await issuer.sign({ scp: ['openid', READ] });
    const res = await request(t.url)
      .get(`${API}/${requestId}`)
      .set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
  });

  it('refuses before validation: a bad body without a token is 401, not 400', async () => {
    const res = await request(t.url).post(API).send({ nonsense: true });
    expect(res.status).toBe(401);
  });

  describe('refuses with 401 invalid_token', () => {
    it.each(
      rejectedTokens(() => issuer, READ).map((rejected) => [rejected.name, rejected] as const),
    )('a token %s', async (_name, rejected) => {
      const res = await request(t.url)
        .get(`${API}/${requestId}`)
        .set('Authorization', `Bearer ${await rejected.token()}`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer realm="card-issue", error="invalid_token", error_description="[^"]+"$/,
      );
      expect(res.headers['www-authenticate']).toMatch(rejected.description);
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 401,
        error: 'Unauthorized',
        message: expect.stringMatching(rejected.description),
      });
    });
  });

  it('tolerates the configured clock skew: expired 20 s ago passes (tolerance 30 s), 40 s ago does not', async () => {
    const within = await issuer.sign({ scope: READ }, { expiresIn: -20 });
    const beyond = await issuer.sign({ scope: READ }, { expiresIn: -40 });
    const get = (token: string) =>
      request(t.url).get(`${API}/${requestId}`).set('Authorization', `Bearer ${token}`);
    expect((await get(within)).status).toBe(200);
    expect((await get(beyond)).status).toBe(401);
    const notBeforeSoon = await issuer.sign({
      scope: READ,
      nbf: Math.floor(Date.now() / 1000) + 20,
    });
    expect((await get(notBeforeSoon)).status).toBe(200);
  });

  it('follows a key rotation: a token with the new kid refetches the JWKS, the retired key is refused', async () => {
    const before = await issuer.sign({ scope: READ });
    const get = (token: string) =>
      request(t.url).get(`${API}/${requestId}`).set('Authorization', `Bearer ${token}`);
    expect((await get(before)).status).toBe(200);
    const fetched = issuer.fetches();
    await issuer.rotate();
    const after = await issuer.sign({ scope: READ });
    expect((await get(after)).status).toBe(200);
    expect(issuer.fetches()).toBe(fetched + 1);
    const retired = await get(before);
    expect(retired.status).toBe(401);
    expect(retired.headers['www-authenticate']).toMatch(/signature/);
  });

  it('keeps health, the OpenAPI document and the reference services (X-secret) open', async () => {
    expect((await request(t.url).get('/api/health')).status).toBe(200);
    expect((await request(t.url).get('/docs-json')).status).toBe(200);
    const users = await request(t.url).get('/user-api/api/v1/users').set('X-secret', SECRET);
    expect(users.status).toBe(200);
    const branches = await request(t.url).get('/branch-api/api/v1/branches');
    expect(branches.status).toBe(403);
  });

  it('declares the bearer scheme, the scopes and the 401/403 of every operation in OpenAPI', async () => {
    const doc = (await request(t.url).get('/docs-json')).body;
    expect(doc.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    const expected: Array<[string, string, string]> = [
      ['post', API, WRITE],
      ['get', `${API}/{id}`, READ],
      ['get', `${API}/client/{clientId}`, READ],
      ['patch', `${API}/{id}/status`, STATUS],
    ];
    for (const [method, path, scope] of expected) {
      const operation = doc.paths[path][method];
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(operation['x-required-scopes']).toEqual([scope]);
      expect(operation.responses['401'].headers['WWW-Authenticate']).toBeDefined();
      expect(operation.responses['403'].description).toContain(scope);
    }
    expect(doc.paths['/api/health'].get.security).toEqual([]);
    // The reference services keep their X-secret, in documents of their own.
    const users = (await request(t.url).get('/user-api/docs-json')).body;
    expect(users.paths['/api/v1/users'].get.security).toEqual([{ 'X-secret': [] }]);
    expect(users.components.securitySchemes.bearer).toBeUndefined();
  });
});

describe('card issue API when the JWKS cannot be fetched (e2e)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    const port = await closedPort();
    t = await startCardIssue({
      label: 'card_issue_auth_down',
      env: {
        ...BACKGROUND_OFF,
        AUTH_MODE: 'jwt',
        AUTH_ISSUER: 'https://issuer.test/',
        AUTH_AUDIENCE: 'bank-backoffice',
        AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
      },
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers 503 with Retry-After (the token can be neither accepted nor refused)', async () => {
    const issuer = await startTestTokenIssuer();
    const token = await issuer.sign({ scope: READ });
    await issuer.close();
    const res = await request(t.url)
      .get(`${API}/RCARDB23112026000001`)
      .set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({
      timestamp: expect.any(String),
      status: 503,
      error: 'Service Unavailable',
      message: "The token issuer's key set is unavailable; retry later",
    });
  });
});
