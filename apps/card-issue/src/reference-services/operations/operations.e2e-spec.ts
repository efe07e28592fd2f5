import { randomInt } from 'node:crypto';
import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startCardIssue } from '../../../test/card-issue.harness';

const SECRET = 'operations-e2e-secret';

function aRequestId(): string {
  return `RCARDB23112026${randomInt(1_000_000).toString().padStart(6, '0')}`;
}

function anOperation(overrides: Record<string, unknown> = {}) {
  return {
    requestId: aRequestId(),
    cardOwner: 'XOWNR1',
    holderUserId: 'XHOLD1',
    formFactor: 'VIRTUAL',
    status: 'CREATED',
    ...overrides,
  };
}

describe.each(['/operation-api', '/operation-api-v2'])('operation service at %s (e2e)', (base) => {
  let t: RunningTestService;
  const OPS = `${base}/api/v1/operations`;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'downstream_operations',
      env: { X_SECRET: SECRET },
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown) =>
    request(t.url)
      .post(OPS)
      .set('X-secret', SECRET)
      .send(body as object);
  const get = (path: string) => request(t.url).get(`${OPS}${path}`).set('X-secret', SECRET);
  const patch = (id: string, body: unknown) =>
    request(t.url)
      .patch(`${OPS}/${id}/status`)
      .set('X-secret', SECRET)
      .send(body as object);

  describe('POST create', () => {
    it('answers 201 with the new operation', async () => {
      const input = anOperation();
      const res = await post(input);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        ...input,
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
        updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
      });
      expect((await get(`/${res.body.id}`)).body).toEqual(res.body);
    });

    it('defaults status to CREATED and holderUserId to null', async () => {
      const input = anOperation();
      delete (input as Partial<typeof input>).status;
      delete (input as Partial<typeof input>).holderUserId;
      const res = await post(input);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'CREATED', holderUserId: null });
    });

    it('is idempotent by requestId: a repeat answers 200 with the stored operation', async () => {
      const input = anOperation();
      const first = await post(input);
      expect(first.status).toBe(201);
      const again = await post({ ...input, status: 'PROCESSING' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      const byOwner = await get(`/by-owner/${input.cardOwner}`);
      expect(
        byOwner.body.filter((o: { requestId: string }) => o.requestId === input.requestId),
      ).toHaveLength(1);
    });

    it('makes one operation out of 10 parallel creates of one request', async () => {
      const input = anOperation({ cardOwner: 'XPARA1' });
      const results = await Promise.all(Array.from({ length: 10 }, () => post(input)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(9);
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    });

    it('answers 409 when the requestId already has an operation for someone or something else', async () => {
      const input = anOperation();
      await post(input).expect(201);
      for (const change of [
        { cardOwner: 'XOTHER' },
        { holderUserId: null },
        { formFactor: 'PLASTIC' },
      ]) {
        const res = await post({ ...input, ...change });
        expect(res.status).toBe(409);
        expect(res.body.message).toContain(input.requestId);
      }
    });

    it('reports every invalid field', async () => {
      const res = await post({
        requestId: 'RCARDB3211202600000',
        cardOwner: 'YABCDE',
        holderUserId: 'x12345',
        formFactor: 'METAL',
        status: 'DONE',
        extra: 1,
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(
        ['cardOwner', 'extra', 'formFactor', 'holderUserId', 'requestId', 'status'].sort(),
      );
    });

    it('requires requestId, cardOwner and formFactor', async () => {
      const res = await post({});
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['cardOwner', 'formFactor', 'requestId']);
    });
  });

  describe('GET', () => {
    it('answers 404 for an unknown or malformed id', async () => {
      const unknown = await get('/3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({
        status: 404,
        error: 'Not Found',
        message: 'Operation 3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77 not found',
      });
      const malformed = await get('/not-a-uuid');
      expect(malformed.status).toBe(404);
      expect(malformed.body.message).toBe('Operation not-a-uuid not found');
    });

    it('lists by owner and by holder, newest first', async () => {
      const owner = `XO${randomInt(1000).toString().padStart(3, '0')}Z`;
      const holder = `XH${randomInt(1000).toString().padStart(3, '0')}Z`;
      const a = (await post(anOperation({ cardOwner: owner, holderUserId: holder }))).body;
      const b = (await post(anOperation({ cardOwner: owner, holderUserId: null }))).body;
      const c = (await post(anOperation({ cardOwner: 'XSOME1', holderUserId: holder }))).body;
      const byOwner = await get(`/by-owner/${owner}`);
      expect(byOwner.status).toBe(200);
      expect(byOwner.body.map((o: { id: string }) => o.id)).toEqual([b.id, a.id]);
      const byHolder = await get(`/by-holder/${holder}`);
      expect(byHolder.status).toBe(200);
      expect(byHolder.body.map((o: { id: string }) => o.id)).toEqual([c.id, a.id]);
      expect((await get('/by-owner/XNONE9')).body).toEqual([]);
    });

    it('answers 400 for a malformed owner or holder id', async () => {
      const owner = await get('/by-owner/abc');
      expect(owner.status).toBe(400);
      expect(Object.keys(owner.body.errors)).toEqual(['cardOwner']);
      const holder = await get('/by-holder/X1234');
      expect(holder.status).toBe(400);
      expect(Object.keys(holder.body.errors)).toEqual(['userId']);
    });
  });

  describe('PATCH status', () => {
    it.each(['CREATED', 'PROCESSING', 'READY', 'PLASTIC_READY', 'FAILED'])(
      'sets status %s',
      async (status) => {
        const { id } = (await post(anOperation())).body;
        const res = await patch(id, { status });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id, status });
        expect((await get(`/${id}`)).body.status).toBe(status);
      },
    );

    it('applies sequenced updates in order and ignores stale or repeated ones', async () => {
      const { id } = (await post(anOperation())).body;
      expect((await patch(id, { status: 'PROCESSING', sequence: 2 })).body.status).toBe(
        'PROCESSING',
      );
      // A late sequence 1 and a redelivered 2 change nothing.
      const late = await patch(id, { status: 'CREATED', sequence: 1 });
      expect(late.status).toBe(200);
      expect(late.body.status).toBe('PROCESSING');
      expect((await patch(id, { status: 'FAILED', sequence: 2 })).body.status).toBe('PROCESSING');
      expect((await patch(id, { status: 'READY', sequence: 3 })).body.status).toBe('READY');
      expect((await get(`/${id}`)).body.status).toBe('READY');
      // An update without a sequence is always applied.
      expect((await patch(id, { status: 'FAILED' })).body.status).toBe('FAILED');
      expect((await patch(id, { status: 'PROCESSING', sequence: 3 })).body.status).toBe('FAILED');
      expect((await patch(id, { status: 'PROCESSING', sequence: 4 })).body.status).toBe(
        'PROCESSING',
      );
    });

    it('applies exactly the highest of parallel sequenced updates', async () => {
      const { id } = (await post(anOperation())).body;
      const statuses = ['PROCESSING', 'READY', 'FAILED', 'PLASTIC_READY', 'CREATED'];
      await Promise.all(statuses.map((status, i) => patch(id, { status, sequence: i + 1 })));
      expect((await get(`/${id}`)).body.status).toBe('CREATED');
    });

    it('answers 404 for an unknown or malformed id', async () => {
      const unknown = await patch('3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77', { status: 'READY' });
      expect(unknown.status).toBe(404);
      expect((await patch('nope', { status: 'READY' })).status).toBe(404);
    });

    it.each([
      [{ status: 'DONE' }, ['status']],
      [{}, ['status']],
      [{ status: 'READY', sequence: 0 }, ['sequence']],
      [{ status: 'READY', sequence: -1 }, ['sequence']],
      [{ status: 'READY', sequence: 1.5 }, ['sequence']],
      [{ status: 'READY', sequence: '2' }, ['sequence']],
      [{ status: 'READY', other: true }, ['other']],
    ])('answers 400 for %j', async (body, paths) => {
      const { id } = (await post(anOperation())).body;
      const res = await patch(id, body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(paths);
    });
  });
});

describe('operation service v1 and v2 paths', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'downstream_operations_paths',
      env: { X_SECRET: SECRET },
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('serve the same operations', async () => {
    const input = anOperation();
    const created = await request(t.url)
      .post('/operation-api/api/v1/operations')
      .set('X-secret', SECRET)
      .send(input);
    expect(created.status).toBe(201);
    const viaV2 = await request(t.url)
      .get(`/operation-api-v2/api/v1/operations/${created.body.id}`)
      .set('X-secret', SECRET);
    expect(viaV2.status).toBe(200);
    expect(viaV2.body).toEqual(created.body);
    const repeatViaV2 = await request(t.url)
      .post('/operation-api-v2/api/v1/operations')
      .set('X-secret', SECRET)
      .send(input);
    expect(repeatViaV2.status).toBe(200);
  });
});
