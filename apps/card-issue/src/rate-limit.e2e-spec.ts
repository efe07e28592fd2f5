import request from 'supertest';
import {
  headersAgainstDeclaration,
  RunningTestService,
  startTestTokenIssuer,
  TestTokenIssuer,
} from '@bank/shared/testing';
import { BACKGROUND_OFF, startCardIssue } from '../test/card-issue.harness';

/** Two routes of the API: a client's requests (200, empty) and an unknown request (404). */
const LIST = '/api/v1/card-issue/client/X1A2B3';
const ONE = '/api/v1/card-issue/RCARDB23112026000001';
const READ = 'card-issue:read';

/** RATE_LIMIT per caller over every route, with the headers its OpenAPI document declares. */
describe('card-issue: the rate limit (e2e)', () => {
  describe('by client address, behind a trusted proxy', () => {
    let t: RunningTestService;

    beforeAll(async () => {
      t = await startCardIssue({
        label: 'card_issue_rate_address',
        env: { ...BACKGROUND_OFF, RATE_LIMIT: '3', TRUST_PROXY: 'loopback' },
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    const from = (address: string) => (path: string) =>
      request(t.url).get(path).set('x-forwarded-for', address);

    it('refuses every route to a caller that used up its budget on one, not another caller', async () => {
      const caller = from('203.0.113.10');
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await caller(LIST)).status);
      statuses.push((await caller(ONE)).status, (await caller(LIST)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect((await from('203.0.113.11')(ONE)).status).toBe(404);
      expect((await caller('/api/health')).status).toBe(200);
    });

    it('sends on a 200 and on the 429 exactly the rate-limit headers the document declares', async () => {
      const document = (await request(t.url).get('/docs-json')).body;
      const caller = from('203.0.113.20');
      const first = await caller(LIST);
      expect(first.status).toBe(200);
      expect(first.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
      expect(first.headers.ratelimit).toMatch(/^"default";r=2;t=\d+$/);
      await caller(LIST);
      await caller(ONE);
      const limited = await caller(LIST);
      expect(limited.status).toBe(429);
      expect(limited.headers.ratelimit).toBe(`"default";r=0;t=${limited.headers['retry-after']}`);
      const route = '/api/v1/card-issue/client/{clientId}';
      expect(headersAgainstDeclaration(document, 'GET', route, 200, first.headers)).toEqual([]);
      expect(headersAgainstDeclaration(document, 'GET', route, 429, limited.headers)).toEqual([]);
    });
  });

  describe('by token subject (AUTH_MODE=jwt)', () => {
    let issuer: TestTokenIssuer;
    let t: RunningTestService;

    beforeAll(async () => {
      issuer = await startTestTokenIssuer();
      t = await startCardIssue({
        label: 'card_issue_rate_subject',
        env: { ...BACKGROUND_OFF, ...issuer.env(), RATE_LIMIT: '3' },
      });
    });

    afterAll(async () => {
      await t?.close();
      await issuer?.close();
    });

    const as = async (subject: string) => {
      const token = await issuer.sign({ sub: subject, scope: READ });
      return (path: string) => request(t.url).get(path).set('authorization', `Bearer ${token}`);
    };

    it('gives each subject its own budget over every route, from one address', async () => {
      const alice = await as('alice');
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await alice(i % 2 ? ONE : LIST)).status);
      statuses.push((await alice(ONE)).status);
      expect(statuses).toEqual([200, 404, 200, 429]);
      expect((await (await as('bob'))(ONE)).status).toBe(404);
    });

    it('counts a request without a valid token against its address', async () => {
      const stranger = await issuer.sign({ sub: 'mallory', scope: READ }, { stranger: true });
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        const call = request(t.url).get(LIST);
        statuses.push(
          (await (i % 2 ? call : call.set('authorization', `Bearer ${stranger}`))).status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      // A subject from the same address keeps its own budget.
      expect((await (await as('carol'))(LIST)).status).toBe(200);
    });
  });
});
