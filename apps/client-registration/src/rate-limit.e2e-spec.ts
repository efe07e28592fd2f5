import request from 'supertest';
import {
  headersAgainstDeclaration,
  RunningTestService,
  startTestTokenIssuer,
  TestTokenIssuer,
} from '@bank/shared/testing';
import { startClientRegistration } from '../test/client-registration.harness';
import { registration } from '../test/client-request.fixture';

/** An unknown client (404) on one route; registrations (201) on another. */
const ONE = '/api/clients/3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21';
const REGISTER = '/api/clients';
const SCOPES = 'clients:read clients:write';

/** RATE_LIMIT per caller over every route, with the headers its OpenAPI document declares. */
describe('client-registration: the rate limit (e2e)', () => {
  describe('by client address, behind a trusted proxy', () => {
    let t: RunningTestService;

    beforeAll(async () => {
      t = await startClientRegistration({
        label: 'registration_rate_address',
        env: { RATE_LIMIT: '3', TRUST_PROXY: 'loopback' },
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    const from = (address: string) => ({
      get: (path: string) => request(t.url).get(path).set('x-forwarded-for', address),
      register: () =>
        request(t.url).post(REGISTER).set('x-forwarded-for', address).send(registration()),
    });

    it('refuses every route to a caller that used up its budget on one, not another caller', async () => {
      const caller = from('203.0.113.10');
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await caller.get(ONE)).status);
      statuses.push((await caller.register()).status, (await caller.get(ONE)).status);
      expect(statuses).toEqual([404, 404, 404, 429, 429]);
      expect((await from('203.0.113.11').register()).status).toBe(201);
      expect((await caller.get('/api/health')).status).toBe(200);
    });

    it('sends on a 201 and on the 429 exactly the rate-limit headers the document declares', async () => {
      const document = (await request(t.url).get('/docs-json')).body;
      const caller = from('203.0.113.20');
      const first = await caller.register();
      expect(first.status).toBe(201);
      expect(first.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
      expect(first.headers.ratelimit).toMatch(/^"default";r=2;t=\d+$/);
      await caller.get(ONE);
      await caller.get(ONE);
      const limited = await caller.register();
      expect(limited.status).toBe(429);
      expect(limited.headers.ratelimit).toBe(`"default";r=0;t=${limited.headers['retry-after']}`);
      expect(headersAgainstDeclaration(document, 'POST', REGISTER, 201, first.headers)).toEqual([]);
      expect(headersAgainstDeclaration(document, 'POST', REGISTER, 429, limited.headers)).toEqual(
        [],
      );
    });
  });

  describe('by token subject (AUTH_MODE=jwt)', () => {
    let issuer: TestTokenIssuer;
    let t: RunningTestService;

    beforeAll(async () => {
      issuer = await startTestTokenIssuer();
      t = await startClientRegistration({
        label: 'registration_rate_subject',
        env: { ...issuer.env(), RATE_LIMIT: '3' },
      });
    });

    afterAll(async () => {
      await t?.close();
      await issuer?.close();
    });

    const as = async (subject: string) => {
      const bearer = `Bearer ${await issuer.sign({ sub: subject, scope: SCOPES })}`;
      return {
        get: (path: string) => request(t.url).get(path).set('authorization', bearer),
        register: () =>
          request(t.url).post(REGISTER).set('authorization', bearer).send(registration()),
      };
    };

    it('gives each subject its own budget over every route, from one address', async () => {
      const alice = await as('alice');
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await alice.get(ONE)).status);
      statuses.push((await alice.register()).status);
      expect(statuses).toEqual([404, 404, 404, 429]);
      expect((await (await as('bob')).register()).status).toBe(201);
    });

    it('counts a request without a valid token against its address', async () => {
      const stranger = await issuer.sign({ sub: 'mallory', scope: SCOPES }, { stranger: true });
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        const call = request(t.url).get(ONE);
        statuses.push(
          (await (i % 2 ? call : call.set('authorization', `Bearer ${stranger}`))).status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      // A subject from the same address keeps its own budget.
      expect((await (await as('carol')).get(ONE)).status).toBe(404);
    });
  });
});
