import request from 'supertest';
import {
  rejectedTokens,
  RunningTestService,
  startTestTokenIssuer,
  TestTokenIssuer,
} from '@bank/shared/testing';
import { startClientRegistration } from '../../test/client-registration.harness';
import { passportData, registration } from '../../test/client-request.fixture';

const READ = 'clients:read';
const WRITE = 'clients:write';
const UNKNOWN_ID = '3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21';

/** AUTH_MODE=jwt through the real HTTP stack, answers in the Russian error shape. */
describe('clients API behind bearer JWT (e2e)', () => {
  let issuer: TestTokenIssuer;
  let t: RunningTestService;
  let clientId: string;

  beforeAll(async () => {
    issuer = await startTestTokenIssuer();
    t = await startClientRegistration({ label: 'clients_auth', env: issuer.env() });
    const created = await request(t.url)
      .post('/api/clients')
      .set('Authorization', `Bearer ${await issuer.sign({ scope: WRITE })}`)
      .send(registration());
    expect(created.status).toBe(201);
    clientId = created.body.id;
  });

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  const bearer = async (scope: string) => `Bearer ${await issuer.sign({ scope })}`;

  const operations = () => [
    {
      name: 'POST',
      scope: WRITE,
      ok: 201,
      call: () => request(t.url).post('/api/clients').send(registration()),
    },
    {
      name: 'GET',
      scope: READ,
      ok: 200,
      call: () => request(t.url).get(`/api/clients/${clientId}`),
    },
    {
      name: 'PUT passport',
      scope: WRITE,
      ok: 200,
      call: () =>
        request(t.url)
          .put(`/api/clients/${clientId}/passport`)
          .send({ passportData: passportData() }),
    },
  ];

  it('refuses every operation without a token: 401 in Russian with a Bearer challenge', async () => {
    for (const operation of operations()) {
      const res = await operation.call();
      expect({ operation: operation.name, status: res.status }).toEqual({
        operation: operation.name,
        status: 401,
      });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="client-registration"');
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 401,
        error: 'Требуется аутентификация',
        message: 'Нужен токен доступа (заголовок Authorization: Bearer <токен>)',
      });
    }
  });

  it('passes every operation with a valid token carrying its scope', async () => {
    for (const operation of operations()) {
      const res = await operation.call().set('Authorization', await bearer(operation.scope));
      expect({ operation: operation.name, status: res.status }).toEqual({
        operation: operation.name,
        status: operation.ok,
      });
    }
  });

  it('answers 403 in Russian when the token lacks the scope', async () => {
    for (const operation of operations()) {
      const other = operation.scope === READ ? WRITE : READ;
      const res = await operation.call().set('Authorization', await bearer(other));
      expect({ operation: operation.name, status: res.status }).toEqual({
        operation: operation.name,
        status: 403,
      });
      expect(res.headers['www-authenticate']).toBe(
        `Bearer realm="client-registration", error="insufficient_scope", scope="${operation.scope}"`,
      );
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 403,
        error: 'Доступ запрещён',
        message: 'Токен доступа не даёт права на эту операцию',
      });
    }
  });

  it('checks the token before the id: a malformed id without a token is 401', async () => {
    expect((await request(t.url).get('/api/clients/not-a-uuid')).status).toBe(401);
  });

  describe('refuses with 401 invalid_token', () => {
    it.each(
      rejectedTokens(() => issuer, READ).map((rejected) => [rejected.name, rejected] as const),
    )('a token %s', async (_name, rejected) => {
      const res = await request(t.url)
        .get(`/api/clients/${UNKNOWN_ID}`)
        .set('Authorization', `Bearer ${await rejected.token()}`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer realm="client-registration", error="invalid_token", error_description="[^"]+"$/,
      );
      expect(res.headers['www-authenticate']).toMatch(rejected.description);
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 401,
        error: 'Требуется аутентификация',
        message: 'Токен доступа недействителен',
      });
    });
  });

  it('tolerates the configured clock skew at its edge (30 s): 20 s late passes, 40 s does not', async () => {
    const get = async (expiresIn: number) =>
      (
        await request(t.url)
          .get(`/api/clients/${clientId}`)
          .set('Authorization', `Bearer ${await issuer.sign({ scope: READ }, { expiresIn })}`)
      ).status;
    expect(await get(-20)).toBe(200);
    expect(await get(-40)).toBe(401);
  });

  it('follows a key rotation through the JWKS and caches the set between rotations', async () => {
    const get = async (token: string) =>
      (await request(t.url).get(`/api/clients/${clientId}`).set('Authorization', `Bearer ${token}`))
        .status;
    const before = await issuer.sign({ scope: READ });
    expect(await get(before)).toBe(200);
    const fetched = issuer.fetches();
    for (let i = 0; i < 5; i++) expect(await get(await issuer.sign({ scope: READ }))).toBe(200);
    expect(issuer.fetches()).toBe(fetched);
    await issuer.rotate();
    expect(await get(await issuer.sign({ scope: READ }))).toBe(200);
    expect(issuer.fetches()).toBe(fetched + 1);
    expect(await get(before)).toBe(401);
  });

  it('keeps health and the OpenAPI document open; documents the scopes', async () => {
    expect((await request(t.url).get('/api/health')).status).toBe(200);
    const doc = (await request(t.url).get('/docs-json')).body;
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const expected: Array<[string, string, string]> = [
      ['post', '/api/clients', WRITE],
      ['get', '/api/clients/{id}', READ],
      ['put', '/api/clients/{id}/passport', WRITE],
    ];
    for (const [method, path, scope] of expected) {
      const operation = doc.paths[path][method];
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(operation['x-required-scopes']).toEqual([scope]);
      expect(operation.responses['401'].content['application/json'].examples).toHaveProperty(
        'missingToken',
      );
      expect(operation.responses['403'].content['application/json'].examples).toHaveProperty(
        'missingScope',
      );
    }
    // The business refusal (under 18) stays documented beside the missing scope.
    expect(
      doc.paths['/api/clients'].post.responses['403'].content['application/json'].examples,
    ).toHaveProperty('underage');
  });
});

/** AUTH_PUBLIC_KEY instead of a JWKS: one configured key (a JWK here; PEM in the lib's tests). */
describe('clients API with a configured public key (e2e)', () => {
  let issuer: TestTokenIssuer;
  let t: RunningTestService;

  beforeAll(async () => {
    issuer = await startTestTokenIssuer();
    t = await startClientRegistration({
      label: 'clients_auth_key',
      env: issuer.env({
        AUTH_JWKS_URL: undefined,
        AUTH_PUBLIC_KEY: JSON.stringify(issuer.publicJwk()),
      }),
    });
  });

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  it('verifies with the key, never fetching a JWKS', async () => {
    const get = async (token: string) =>
      (
        await request(t.url)
          .get(`/api/clients/${UNKNOWN_ID}`)
          .set('Authorization', `Bearer ${token}`)
      ).status;
    expect(await get(await issuer.sign({ scope: READ }))).toBe(404);
    expect(await get(await issuer.sign({ scope: READ }, { stranger: true }))).toBe(401);
    expect(await get(await issuer.sign({ scope: WRITE }))).toBe(403);
    expect(issuer.fetches()).toBe(0);
  });
});
