import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startCardIssue } from '../../../test/card-issue.harness';

const SECRET = 'branches-e2e-secret';
const BRANCHES = '/branch-api/api/v1/branches';

describe('branch service (e2e)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'downstream_branches',
      env: { X_SECRET: SECRET },
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  const get = (path: string) => request(t.url).get(`${BRANCHES}${path}`).set('X-secret', SECRET);

  it.each(['0001', '0002', '0003', '0004', '0005'])('serves seeded branch %s', async (id) => {
    const res = await get(`/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, name: expect.any(String), address: expect.any(String) });
    expect(res.body.name).not.toBe('');
  });

  it('lists the branches ordered by id, 0001-0005 among them', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    const ids = res.body.map((b: { id: string }) => b.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(['0001', '0002', '0003', '0004', '0005']));
  });

  it('answers 404 naming an unknown branch', async () => {
    const res = await get('/9999');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      status: 404,
      error: 'Not Found',
      message: 'Branch 9999 not found',
    });
  });

  it.each(['001', '00001', 'abcd', '00a1'])('answers 400 for the malformed id %s', async (id) => {
    const res = await get(`/${id}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, message: 'Validation failed' });
    expect(res.body.errors).toEqual({ id: 'must be exactly 4 digits' });
  });
});
