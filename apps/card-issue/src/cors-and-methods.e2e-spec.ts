import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startCardIssue } from '../test/card-issue.harness';

const APP = 'https://app.example.com';
const OTHER_APP = 'http://localhost:3000';
const STRANGER = 'https://evil.example.net';
/** Any id: the methods of a path do not depend on it (and this one is malformed, a 400 to GET). */
const ID = '00000000-0000-4000-8000-000000000001';

/** Every Access-Control-* header of a response. */
function corsHeaders(headers: Record<string, unknown>): string[] {
  return Object.keys(headers).filter((name) => name.startsWith('access-control-'));
}

describe('card-issue: an unsupported method and CORS (e2e)', () => {
  describe('by default (CORS_ORIGINS unset)', () => {
    let t: RunningTestService;

    beforeAll(async () => {
      t = await startCardIssue({ label: 'card_issue_cors_off' });
    });

    afterAll(async () => {
      await t?.close();
    });

    it.each([
      ['DELETE', `/api/v1/card-issue/${ID}`, 'GET, HEAD'],
      ['PUT', '/api/v1/card-issue', 'POST'],
      ['GET', `/api/v1/card-issue/${ID}/status`, 'PATCH'],
      ['POST', '/api/health', 'GET, HEAD'],
      ['PUT', '/user-api/api/v1/users/1', 'DELETE, GET, HEAD'],
      ['OPTIONS', '/api/v1/card-issue', 'POST'],
    ])('answers %s %s with 405, Allow: %s, in the error shape', async (method, path, allow) => {
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
        error: 'Method Not Allowed',
        message: `Method ${method} is not supported by this resource; it supports ${allow}`,
      });
    });

    it.each([
      ['GET', '/api/v1/nothing'],
      ['DELETE', '/api/v1/card-issue/a/b/c'],
      ['POST', '/nowhere'],
    ])('answers %s %s, a path no route has, with 404 and no Allow', async (method, path) => {
      const res = await request(t.url)[method.toLowerCase() as 'get'](path);
      expect(res.status).toBe(404);
      expect(res.headers.allow).toBeUndefined();
      expect(res.body).toMatchObject({ status: 404, error: 'Not Found' });
    });

    it('still answers HEAD on a GET route', async () => {
      const res = await request(t.url).head('/api/health');
      expect(res.status).toBe(200);
      expect(res.headers.allow).toBeUndefined();
    });

    it('sends no CORS header, to a request or a preflight from any origin', async () => {
      const simple = await request(t.url).get('/api/health').set('origin', APP);
      expect(simple.status).toBe(200);
      expect(corsHeaders(simple.headers)).toEqual([]);
      const preflight = await request(t.url)
        .options('/api/v1/card-issue')
        .set('origin', APP)
        .set('access-control-request-method', 'POST');
      expect(preflight.status).toBe(405);
      expect(corsHeaders(preflight.headers)).toEqual([]);
    });
  });

  describe(`with CORS_ORIGINS=${APP},${OTHER_APP}`, () => {
    let t: RunningTestService;

    beforeAll(async () => {
      t = await startCardIssue({
        label: 'card_issue_cors_on',
        env: { CORS_ORIGINS: `${APP}, ${OTHER_APP}` },
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    it.each([APP, OTHER_APP])(
      'answers a preflight from %s with the methods of the path and the allowed headers',
      async (origin) => {
        const res = await request(t.url)
          .options('/api/v1/card-issue')
          .set('origin', origin)
          .set('access-control-request-method', 'POST')
          .set('access-control-request-headers', 'content-type,idempotency-key,authorization');
        expect(res.status).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        expect(res.headers['access-control-allow-methods']).toBe('POST');
        expect(res.headers['access-control-allow-headers']).toBe(
          'Authorization, Content-Type, Idempotency-Key, X-Request-Id',
        );
        expect(res.headers['access-control-max-age']).toBe('600');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
        expect(res.headers.vary).toMatch(/\bOrigin\b/);
      },
    );

    it('lists every method of the path in a preflight (GET implies HEAD)', async () => {
      const res = await request(t.url)
        .options(`/api/v1/card-issue/${ID}/status`)
        .set('origin', APP)
        .set('access-control-request-method', 'PATCH');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-methods']).toBe('PATCH');
      const record = await request(t.url)
        .options(`/api/v1/card-issue/${ID}`)
        .set('origin', APP)
        .set('access-control-request-method', 'GET');
      expect(record.headers['access-control-allow-methods']).toBe('GET, HEAD');
    });

    it('gives a preflight from another origin no CORS header (405 with Allow, in the error shape)', async () => {
      const res = await request(t.url)
        .options('/api/v1/card-issue')
        .set('origin', STRANGER)
        .set('access-control-request-method', 'POST');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(corsHeaders(res.headers)).toEqual([]);
      expect(res.body).toMatchObject({ status: 405, error: 'Method Not Allowed' });
    });

    it('gives a preflight on a path no route has a 404 without CORS headers', async () => {
      const res = await request(t.url)
        .options('/api/v1/nothing')
        .set('origin', APP)
        .set('access-control-request-method', 'GET');
      expect(res.status).toBe(404);
      expect(corsHeaders(res.headers)).toEqual([]);
    });

    it('answers an OPTIONS that is not a preflight like any unsupported method', async () => {
      const res = await request(t.url).options('/api/v1/card-issue').set('origin', APP);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(corsHeaders(res.headers)).toEqual([]);
    });

    it('lets the allowed origin read the response and its headers', async () => {
      const res = await request(t.url)
        .get('/api/health')
        .set('origin', APP)
        .set('x-request-id', 'cors-1');
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(APP);
      expect(res.headers['access-control-expose-headers']).toBe(
        'X-Request-Id, Idempotent-Replayed, Retry-After, RateLimit, RateLimit-Policy',
      );
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
      expect(res.headers['x-request-id']).toBe('cors-1');
    });

    it('lets the allowed origin read errors too (a 400, a 404 and a 405)', async () => {
      const invalid = await request(t.url).get(`/api/v1/card-issue/${ID}`).set('origin', APP);
      expect(invalid.status).toBe(400);
      expect(invalid.headers['access-control-allow-origin']).toBe(APP);
      const missing = await request(t.url).get('/api/v1/nothing').set('origin', APP);
      expect(missing.status).toBe(404);
      expect(missing.headers['access-control-allow-origin']).toBe(APP);
      const unsupported = await request(t.url)
        .delete(`/api/v1/card-issue/${ID}`)
        .set('origin', APP);
      expect(unsupported.status).toBe(405);
      expect(unsupported.headers['access-control-allow-origin']).toBe(APP);
      expect(unsupported.headers.allow).toBe('GET, HEAD');
    });

    it('answers a request from another origin without CORS headers (the browser withholds it)', async () => {
      const res = await request(t.url).get('/api/health').set('origin', STRANGER);
      expect(res.status).toBe(200);
      expect(corsHeaders(res.headers)).toEqual([]);
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
    });
  });
});
