import { LoadFixtures, Payloads } from './fixtures';

/** One request shape sent over and over by a load run, to a service and to its baseline. */
export interface Scenario {
  name: string;
  service: 'card' | 'reg';
  method: 'GET' | 'POST';
  /** Called per request, so consecutive requests can differ. */
  path: () => string;
  body?: () => object;
  /**
   * The service GETs the request's users from the user service over HTTP: it is measured
   * against a second baseline that does the same GETs (baseline-server.ts, USER_LOOKUP=http).
   */
  userGets?: true;
  /** Headers of every request (besides content-type). */
  headers?: Record<string, string>;
  /**
   * Measured against another process than the node:http baseline: `cardJwt` is card-issue with
   * AUTH_MODE=jwt, compared with the same service with AUTH_MODE=none (the cost of the token).
   */
  target?: 'cardJwt';
}

/** Name of the bearer JWT scenario (BENCH_ONLY=jwt runs it alone). */
export const JWT_SCENARIO =
  'bearer JWT: GET /api/v1/card-issue/{id} (vs the service with AUTH_MODE=none)';

/** The load scenarios of both services, cycling through the fixtures. */
export function loadScenarios(
  fixtures: LoadFixtures,
  payloads: Payloads,
  authorization: string,
): Scenario[] {
  const { owners, listed, requestIds, clientIds } = fixtures;
  let turn = 0;
  const next = <T>(items: T[]): T => items[turn++ % items.length];
  return [
    {
      name: 'POST /api/v1/card-issue (VIRTUAL, self)',
      service: 'card',
      method: 'POST',
      path: () => '/api/v1/card-issue',
      body: () => payloads.virtualCardForSelf(next(owners)),
      userGets: true,
    },
    {
      name: 'POST /api/v1/card-issue (PLASTIC, courier)',
      service: 'card',
      method: 'POST',
      path: () => '/api/v1/card-issue',
      body: () => payloads.plasticCardByCourier(next(owners)),
      userGets: true,
    },
    {
      name: 'GET /api/v1/card-issue/{id}',
      service: 'card',
      method: 'GET',
      path: () => `/api/v1/card-issue/${next(requestIds)}`,
    },
    {
      name: JWT_SCENARIO,
      service: 'card',
      method: 'GET',
      path: () => `/api/v1/card-issue/${next(requestIds)}`,
      headers: { authorization },
      target: 'cardJwt',
    },
    {
      name: 'GET /api/v1/card-issue/client/{clientId} (10 requests)',
      service: 'card',
      method: 'GET',
      path: () => `/api/v1/card-issue/client/${listed}`,
    },
    {
      name: 'POST /api/clients',
      service: 'reg',
      method: 'POST',
      path: () => '/api/clients',
      body: () => payloads.registration(),
    },
    {
      name: 'GET /api/clients/{id}',
      service: 'reg',
      method: 'GET',
      path: () => `/api/clients/${next(clientIds)}`,
    },
  ];
}

/** A scenario by its name (the profile runs pick theirs this way). */
export function scenarioNamed(scenarios: Scenario[], name: string): Scenario {
  const found = scenarios.find((s) => s.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
}
