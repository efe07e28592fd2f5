import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startCardIssue } from '../../../test/card-issue.harness';

const SECRET = 'the-right-secret-1';

/** Every route of the downstream services, with a body where one is needed. */
const ROUTES: Array<[string, string]> = [
  ['post', '/user-api/api/v1/users'],
  ['get', '/user-api/api/v1/users'],
  ['get', '/user-api/api/v1/users/XABCDE'],
  ['delete', '/user-api/api/v1/users/XABCDE'],
  ['post', '/operation-api/api/v1/operations'],
  ['get', '/operation-api/api/v1/operations/3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77'],
  ['get', '/operation-api/api/v1/operations/by-owner/XABCDE'],
  ['get', '/operation-api/api/v1/operations/by-holder/XABCDE'],
  ['patch', '/operation-api/api/v1/operations/3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77/status'],
  ['post', '/operation-api-v2/api/v1/operations'],
  ['get', '/operation-api-v2/api/v1/operations/by-owner/XABCDE'],
  ['patch', '/operation-api-v2/api/v1/operations/3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77/status'],
  ['get', '/branch-api/api/v1/branches'],
  ['get', '/branch-api/api/v1/branches/0001'],
];

type Method = 'get' | 'post' | 'patch' | 'delete';

/** The parts of an OpenAPI document these checks read. */
interface OpenApiDocument {
  servers: { url: string }[];
  tags: { name: string }[];
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, { properties: Record<string, unknown> }>;
  };
  paths: Record<
    string,
    Record<string, { security?: unknown; tags?: string[]; responses: Record<string, unknown> }>
  >;
}

describe('X-secret on the downstream services (e2e)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'downstream_x_secret',
      env: { X_SECRET: SECRET },
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  const call = (method: string, path: string) => {
    const req = request(t.url)[method as Method](path);
    return method === 'post' || method === 'patch' ? req.send({}) : req;
  };

  describe.each([
    ['missing', undefined],
    ['empty', ''],
    ['wrong, same length', 'the-right-secret-2'],
    ['wrong, shorter', 'the-right'],
    ['wrong, longer', `${SECRET}x`],
    ['in another case', SECRET.toUpperCase()],
  ])('%s', (_label, secret) => {
    it.each(ROUTES)('%s %s answers 403 in the card-issue shape', async (method, path) => {
      const req = call(method, path);
      if (secret !== undefined) void req.set('X-secret', secret);
      const res = await req;
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        timestamp: expect.any(String),
        status: 403,
        error: 'Forbidden',
        message: 'X-secret header is invalid or missing',
      });
    });
  });

  it('is checked before validation (a bad body without the secret is 403, not 400)', async () => {
    const res = await request(t.url).post('/user-api/api/v1/users').send({ nonsense: true });
    expect(res.status).toBe(403);
  });

  it('takes the header name in any case', async () => {
    const res = await request(t.url).get('/branch-api/api/v1/branches').set('x-secret', SECRET);
    expect(res.status).toBe(200);
    const upper = await request(t.url).get('/branch-api/api/v1/branches').set('X-SECRET', SECRET);
    expect(upper.status).toBe(200);
  });

  it('is not required by the health endpoint', async () => {
    expect((await request(t.url).get('/api/health')).status).toBe(200);
  });

  it('documents each service on its own, with the X-secret apiKey scheme, under its prefix', async () => {
    const docs: Record<string, OpenApiDocument> = {};
    for (const prefix of ['user-api', 'operation-api', 'operation-api-v2', 'branch-api']) {
      docs[prefix] = (await request(t.url).get(`/${prefix}/docs-json`)).body as OpenApiDocument;
      expect(docs[prefix].servers).toEqual([{ url: `/${prefix}` }]);
      expect(docs[prefix].components.securitySchemes['X-secret']).toEqual(
        expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-secret' }),
      );
    }
    for (const [method, path] of ROUTES) {
      const [, prefix, rest] = /^\/([^/]+)(\/.*)$/.exec(path) as RegExpExecArray;
      const template = rest
        .replace(/XABCDE$/, () =>
          rest.includes('by-owner')
            ? '{cardOwner}'
            : rest.includes('by-holder')
              ? '{userId}'
              : '{id}',
        )
        .replace(/3f0e4a52-[0-9a-f-]+/, '{id}')
        .replace(/\/0001$/, '/{id}');
      const operation = docs[prefix].paths[template]?.[method];
      expect({ prefix, template, method, found: Boolean(operation) }).toEqual({
        prefix,
        template,
        method,
        found: true,
      });
      expect(operation.security).toEqual([{ 'X-secret': [] }]);
      expect(operation.responses['403']).toBeDefined();
    }
    expect(docs['user-api'].tags.map((tag) => tag.name)).toEqual(['user service']);
    expect(docs['operation-api-v2'].paths['/api/v1/operations'].post.tags).toEqual([
      'operation service (v2 path)',
    ]);
    expect(docs['operation-api'].paths['/api/v1/operations'].post.tags).toEqual([
      'operation service (v1)',
    ]);
    const userSchema = docs['user-api'].components.schemas.CreateUserDto;
    expect(userSchema.properties.firstName).toMatchObject({ maxLength: 150, example: 'Ivan' });
  });

  it('leaves the card issue document to the card issue API, without X-secret', async () => {
    const doc = (await request(t.url).get('/docs-json')).body;
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toEqual([
      'card-issue',
      'webhook-subscriptions',
      'health',
    ]);
    expect(Object.keys(doc.paths).filter((path) => /-api\//.test(path))).toEqual([]);
    // Its own scheme is the optional bearer JWT (AUTH_MODE=jwt); X-secret is not among them.
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer']);
    expect(doc.paths['/api/health'].get.security).toEqual([]);
  });
});
