import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startClientRegistration } from '../test/client-registration.harness';

const APP = 'https://app.example.com';
const STRANGER = 'https://evil.example.net';

/** Every Access-Control-* header of a response. */
function corsHeaders(headers: Record<string, unknown>): string[] {
  return Object.keys(headers).filter((name) => name.startsWith('access-control-'));
}

describe('client-registration: an unsupported method and CORS (e2e)', () => {
  describe('by default (CORS_ORIGINS unset)', () => {
    let t: RunningTestService;

    beforeAll(async () => {
      t = await startClientRegistration({ label: 'client_registration_cors_off' });
    });

    afterAll(async () => {
      await t?.close();
    });

    it.each([
      ['PUT', '/api/clients', 'POST'],
      ['GET', '/api/clients', 'POST'],
      ['DELETE', '/api/clients/42', 'GET, HEAD'],
      ['POST', '/api/clients/42/passport', 'PUT'],
      ['PATCH', '/api/health', 'GET, HEAD'],
      ['OPTIONS', '/api/clients', 'POST'],
    ])('answers %s %s with 405, Allow: %s, in Russian', async (method, path, allow) => {
      const res = await request(t.url)
        [method.toLowerCase() as 'get'](path)
        .set('x-request-id', 'm-405');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toBe('m-405');
      expect(res.body).toEqual({
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/),
        status: 405,
        error: 'Метод не поддерживается',
        message: 'Метод не поддерживается для этого ресурса',
      });
    });

    it.each([
      ['GET', '/api/client'],
      ['DELETE', '/api/clients/42/passport/1'],
    ])('answers %s %s, a path no route has, with 404 and no Allow', async (method, path) => {
      const res = await request(t.url)[method.toLowerCase() as 'get'](path);
      expect(res.status).toBe(404);
      expect(res.headers.allow).toBeUndefined();
      expect(res.body).toMatchObject({ status: 404, error: 'Ресурс не найден' });
    });

    it('still answers HEAD on a GET route', async () => {
      const res = await request(t.url).head('/api/health');
      expect(res.status).toBe(200);
    });

    it('sends no CORS header, to a request or a preflight', async () => {
      const simple = await request(t.url).get('/api/health').set('origin', APP);
      expect(simple.status).toBe(200);
      expect(corsHeaders(simple.headers)).toEqual([]);
      const preflight = await request(t.url)
        .options('/api/clients')
        .set('origin', APP)
        .set('access-control-request-method', 'POST');
      expect(preflight.status).toBe(405);
      expect(corsHeaders(preflight.headers)).toEqual([]);
    });
  });

  describe(`with CORS_ORIGINS=${APP}`, () => {
    let t: RunningTestService;

    beforeAll(async () => {
      t = await startClientRegistration({
        label: 'client_registration_cors_on',
        env: { CORS_ORIGINS: APP },
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('answers a preflight from the allowed origin with the methods of the path and the allowed headers', async () => {
      const res = await request(t.url)
        .options('/api/clients/42/passport')
        .set('origin', APP)
        .set('access-control-request-method', 'PUT')
        .set('access-control-request-headers', 'content-type,authorization,x-request-id');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(APP);
      expect(res.headers['access-control-allow-methods']).toBe('PUT');
      expect(res.headers['access-control-allow-headers']).toBe(
        'Authorization, Content-Type, Idempotency-Key, X-Request-Id',
      );
      expect(res.headers['access-control-max-age']).toBe('600');
    });

    it('gives a preflight from another origin no CORS header (405 with Allow, in Russian)', async () => {
      const res = await request(t.url)
        .options('/api/clients')
        .set('origin', STRANGER)
        .set('access-control-request-method', 'POST');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(corsHeaders(res.headers)).toEqual([]);
      expect(res.body).toMatchObject({ status: 405, error: 'Метод не поддерживается' });
    });

    it('lets the allowed origin read a response, its headers and errors', async () => {
      const res = await request(t.url).get('/api/health').set('origin', APP);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(APP);
      expect(res.headers['access-control-expose-headers']).toBe(
        'X-Request-Id, Idempotent-Replayed, Retry-After, RateLimit, RateLimit-Policy',
      );
      const invalid = await request(t.url)
        .post('/api/clients')
        .set('origin', APP)
        .send({ unknown: true });
      expect(invalid.status).toBe(400);
      expect(invalid.headers['access-control-allow-origin']).toBe(APP);
      const unsupported = await request(t.url).delete('/api/clients/42').set('origin', APP);
      expect(unsupported.status).toBe(405);
      expect(unsupported.headers['access-control-allow-origin']).toBe(APP);
    });

    it('answers a request from another origin without CORS headers', async () => {
      const res = await request(t.url).get('/api/health').set('origin', STRANGER);
      expect(res.status).toBe(200);
      expect(corsHeaders(res.headers)).toEqual([]);
    });
  });
});
