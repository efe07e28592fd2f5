import { Logger } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { Metrics } from '@bank/shared/metrics';
import { CoreModule } from '@bank/shared/nest';
import { closedPort, eventually, parseMetrics, valueOf } from '@bank/shared/testing';
import { json, StubServer } from '../../test/stub-server';
import { aUser } from '../../test/users.fixture';
import { CardIssueEnvironment, SERVICE_NAME } from '../config/environment.config';
import { GatewayResult } from './gateway-result.model';
import { IntegrationsModule } from './integrations.module';
import { DownstreamUser, UsersClient } from './users/users.client';

/*
 * The circuit breaker of the gateways, over real HTTP to a stub user service (node:http on
 * 127.0.0.1) or to a port nothing listens on. A failure-rate breaker over a sliding window: a
 * burst of slow calls that is few, or a minority of the window's calls, leaves it closed; a
 * dead service opens it at the DOWNSTREAM_BREAKER_FAILURES-th failed attempt; after
 * DOWNSTREAM_BREAKER_OPEN_MS one probe goes through and decides.
 */

const CIRCUIT_OPEN = 'circuit open after repeated failures';

async function gateways(userUrl: string, overrides: Record<string, string>) {
  const moduleRef: TestingModule = await Test.createTestingModule({
    imports: [
      CoreModule.forRoot({
        serviceName: SERVICE_NAME,
        environment: CardIssueEnvironment,
        overrides: {
          LOG_LEVEL: 'silent',
          X_SECRET: 'stub-secret-value',
          USER_API_URL: userUrl,
          BRANCH_API_URL: userUrl,
          OPERATION_API_URL: userUrl,
          DOWNSTREAM_RETRY_DELAY_MS: '10',
          ...overrides,
        },
      }),
      IntegrationsModule,
    ],
  }).compile();
  await moduleRef.init();
  const users = moduleRef.get(UsersClient);
  const metrics = moduleRef.get(Metrics);
  return {
    moduleRef,
    users,
    /** HTTP attempts made to the user service so far (downstream_attempts_total). */
    attempts: async () =>
      valueOf(parseMetrics(await metrics.scrape()), 'downstream_attempts_total', {
        service: 'user',
      }) ?? 0,
    /** A call that is not retried (no idempotency key): one attempt each. */
    createOnce: () => users.createUser(aUser()),
  };
}

const reasonOf = (result: GatewayResult<unknown>) =>
  result.kind === 'unavailable' ? result.reason : result.kind;

describe('the downstream circuit breaker over real HTTP (integration)', () => {
  const stub = new StubServer();
  let stubUrl: string;
  const modules: TestingModule[] = [];
  const boot = async (overrides: Record<string, string>, url = `${stubUrl}/user-api`) => {
    const g = await gateways(url, overrides);
    modules.push(g.moduleRef);
    return g;
  };
  /** Requests the stub holds unanswered, answered 200 by release(). */
  let held: (() => void)[] = [];
  const hold = () =>
    stub.reset((_req, res) => {
      held.push(() => {
        if (!res.destroyed) json(res, 201, { ...aUser(), id: 'XHELD1' });
      });
    });
  const release = () => {
    for (const answer of held) answer();
    held = [];
  };
  const healthy = () => stub.reset((_req, res) => json(res, 201, { ...aUser(), id: 'XOK001' }));

  beforeAll(async () => {
    stubUrl = await stub.start();
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    release();
    for (const m of modules.splice(0)) await m.close();
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await stub.stop();
  });

  it('a burst of concurrent calls past the attempt timeout, fewer than the minimum, leaves it closed (default breaker settings)', async () => {
    // The busy second: ten calls at once, each past the 1 s attempt timeout. A count of
    // consecutive failures opened the breaker at the fifth, and the next call was refused.
    const g = await boot({ DOWNSTREAM_TIMEOUT_MS: '1000' });
    hold();
    const burst = await Promise.all(Array.from({ length: 10 }, () => g.createOnce()));
    expect(burst.map(reasonOf)).toEqual(Array(10).fill('no answer within 1000 ms'));
    healthy();
    expect(await g.createOnce()).toMatchObject({ kind: 'ok' });
    expect(stub.hits).toHaveLength(1);
  });

  it('a burst of slow calls that stays under the failure rate of the window leaves it closed', async () => {
    const g = await boot({
      DOWNSTREAM_TIMEOUT_MS: '1000',
      DOWNSTREAM_BREAKER_FAILURES: '10',
      DOWNSTREAM_BREAKER_FAILURE_RATE: '0.5',
      DOWNSTREAM_BREAKER_WINDOW_MS: '60000',
    });
    healthy();
    for (let i = 0; i < 20; i++) expect((await g.createOnce()).kind).toBe('ok');
    // 15 failures in a row, 15 of 35 calls in the window: above the minimum, under half.
    hold();
    const burst = await Promise.all(Array.from({ length: 15 }, () => g.createOnce()));
    expect(burst.map(reasonOf)).toEqual(Array(15).fill('no answer within 1000 ms'));
    healthy();
    expect(await g.createOnce()).toMatchObject({ kind: 'ok' });
    expect(stub.hits).toHaveLength(1);
  });

  it('a service that refuses connections: open at the DOWNSTREAM_BREAKER_FAILURES-th failed attempt, then refused without a call', async () => {
    const g = await boot(
      {
        DOWNSTREAM_RETRIES: '2',
        DOWNSTREAM_BREAKER_FAILURES: '5',
        DOWNSTREAM_BREAKER_OPEN_MS: '60000',
      },
      `http://127.0.0.1:${await closedPort()}/user-api`,
    );
    // Three attempts (two retries), then two: the fifth failed attempt opens it, and the retry
    // after it is refused by the breaker.
    expect(reasonOf(await g.users.getUser('XABCDE'))).toBe('connection refused');
    expect(await g.attempts()).toBe(3);
    const opened = await g.users.getUser('XABCDE');
    expect(opened).toMatchObject({ kind: 'unavailable', reason: CIRCUIT_OPEN });
    expect(await g.attempts()).toBe(5);
    for (let i = 0; i < 5; i++) {
      const refused = await g.users.getUser('XABCDE');
      expect(refused).toMatchObject({ kind: 'unavailable', reason: CIRCUIT_OPEN });
      // When to come back: the cool-down left.
      const retryAfterMs = (refused as { retryAfterMs: number }).retryAfterMs;
      expect(retryAfterMs).toBeGreaterThan(50_000);
      expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    }
    expect(await g.attempts()).toBe(5);
  });

  it('a service that times out: open at the DOWNSTREAM_BREAKER_FAILURES-th timed-out attempt', async () => {
    const g = await boot({
      DOWNSTREAM_TIMEOUT_MS: '100',
      DOWNSTREAM_BREAKER_FAILURES: '4',
      DOWNSTREAM_BREAKER_OPEN_MS: '60000',
    });
    hold();
    for (let i = 0; i < 4; i++)
      expect(reasonOf(await g.createOnce())).toBe('no answer within 100 ms');
    expect(reasonOf(await g.createOnce())).toBe(CIRCUIT_OPEN);
    expect(stub.hits).toHaveLength(4);
  });

  it('half-open: after the cool-down exactly one probe goes through, others are refused at once, and its success closes the breaker', async () => {
    const g = await boot({
      DOWNSTREAM_TIMEOUT_MS: '5000',
      DOWNSTREAM_REQUEST_BUDGET_MS: '10000',
      DOWNSTREAM_BREAKER_FAILURES: '3',
      DOWNSTREAM_BREAKER_OPEN_MS: '300',
    });
    stub.reset((_req, res) => json(res, 500, {}));
    for (let i = 0; i < 3; i++) expect(reasonOf(await g.createOnce())).toBe('answered 500');
    expect(reasonOf(await g.createOnce())).toBe(CIRCUIT_OPEN);

    // The service is back but slow: the first call after the cool-down is the probe, held.
    hold();
    const out = new Set<Promise<GatewayResult<DownstreamUser>>>();
    await eventually(async () => {
      const call = g.createOnce();
      out.add(call);
      void call.then(() => out.delete(call));
      await new Promise((resolve) => setImmediate(resolve));
      return held.length === 1;
    });
    // The probe is the one call still out: refused calls settle at once.
    await eventually(() => Promise.resolve(out.size === 1));
    const [probe] = out;
    // While the probe is out, other calls are refused at once, without a call.
    const during = await g.createOnce();
    expect(during).toMatchObject({ kind: 'unavailable', reason: CIRCUIT_OPEN, retryAfterMs: 0 });
    expect(stub.hits).toHaveLength(1);

    release();
    expect(await probe).toMatchObject({ kind: 'ok' });
    // Closed: every call goes out again.
    healthy();
    for (let i = 0; i < 3; i++) expect((await g.createOnce()).kind).toBe('ok');
    expect(stub.hits).toHaveLength(3);
  });

  it('half-open: a failed probe opens it for another full cool-down', async () => {
    const openMs = 400;
    const g = await boot({
      DOWNSTREAM_BREAKER_FAILURES: '3',
      DOWNSTREAM_BREAKER_OPEN_MS: String(openMs),
    });
    stub.reset((_req, res) => json(res, 500, {}));
    for (let i = 0; i < 3; i++) await g.createOnce();
    stub.hits.length = 0;
    // Calls are refused until the cool-down has passed; then one probe reaches the service.
    let probe: GatewayResult<DownstreamUser> | undefined;
    await eventually(async () => {
      probe = await g.createOnce();
      return stub.hits.length === 1;
    });
    expect(reasonOf(probe as GatewayResult<DownstreamUser>)).toBe('answered 500');
    const refused = await g.createOnce();
    expect(refused).toMatchObject({ kind: 'unavailable', reason: CIRCUIT_OPEN });
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(openMs / 2);
    expect(stub.hits).toHaveLength(1);
  });

  it('never opens with DOWNSTREAM_BREAKER_FAILURES=0', async () => {
    const g = await boot({ DOWNSTREAM_BREAKER_FAILURES: '0' });
    stub.reset((_req, res) => json(res, 500, {}));
    for (let i = 0; i < 30; i++) expect(reasonOf(await g.createOnce())).toBe('answered 500');
    expect(stub.hits).toHaveLength(30);
  });
});
