import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startClientRegistration } from '../test/client-registration.harness';

describe('client-registration service (e2e)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startClientRegistration({
      label: 'client_registration_app',
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('reports UP with its name when the database answers', async () => {
    const res = await request(t.url).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'UP',
      service: 'client-registration',
      checks: { database: { status: 'UP' } },
    });
  });

  it('serves Swagger UI at /docs and the OpenAPI document at /docs-json', async () => {
    const ui = await request(t.url).get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger-ui');
    const json = await request(t.url).get('/docs-json');
    expect(json.status).toBe(200);
    expect(json.body.openapi).toMatch(/^3\./);
    expect(Object.keys(json.body.paths)).toContain('/api/health');
  });

  it('echoes a safe X-Request-Id', async () => {
    const res = await request(t.url).get('/api/health').set('x-request-id', 'abc-123');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('reports DOWN with 503 once the database is gone', async () => {
    await t.db.drop();
    const res = await request(t.url).get('/api/health');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'DOWN', service: 'client-registration' });
  });
});
