import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Clock } from '@bank/shared/calendar';
import { closedPort, eventually, RunningTestService } from '@bank/shared/testing';
import { createUser, SECRET, selfVirtual, startCardIssue } from '@bank/card-issue/testing';
import { startClientRegistration } from '@bank/client-registration/testing';
import {
  describeWithPrometheus,
  query,
  RuleState,
  rules,
  RunningPrometheus,
  startPrometheus,
} from './support/prometheus';

const API = '/api/v1/card-issue';

/** The system clock, moved forward on demand (how long a request has been due is counted on it). */
class MovableClock extends Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

type UserServiceMode = 'proxy' | 'slow' | 'down';

/**
 * The user service card-issue calls: its own /user-api behind a switch, so the test can make it
 * slow (1.2 s, past the latency alert's 1 s) or failing (503, so the card issue POST answers 503).
 */
function userServiceSwitch(target: () => string): {
  mode: UserServiceMode;
  start(): Promise<string>;
  stop(): Promise<void>;
} {
  let server: Server;
  const state = {
    mode: 'proxy' as UserServiceMode,
    async start() {
      server = createServer((req, res) => {
        if (state.mode === 'down') {
          res.writeHead(503, { 'content-type': 'application/json' }).end('{}');
          return;
        }
        const forward = async () => {
          const answer = await fetch(`${target()}/user-api${req.url}`, {
            headers: { 'x-secret': SECRET, accept: 'application/json' },
          });
          res
            .writeHead(answer.status, { 'content-type': 'application/json' })
            .end(await answer.text());
        };
        setTimeout(
          () => void forward().catch(() => res.destroy()),
          state.mode === 'slow' ? 1_200 : 0,
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return state;
}

const postCard = (url: string, owner: string) =>
  fetch(`${url}${API}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(selfVirtual(owner)),
  }).then((res) => res.status);

describeWithPrometheus('a real Prometheus scraping both services evaluates the rules (e2e)', () => {
  const clock = new MovableClock();
  let cardIssue: RunningTestService;
  let registration: RunningTestService;
  let prometheus: RunningPrometheus;
  const users = userServiceSwitch(() => cardIssue.url);

  /** Waits until Prometheus has scraped a series matching `promql` (so a later rise is a rate). */
  const scraped = (promql: string) =>
    eventually(async () => (await query(prometheus.url, promql)).length > 0, 30_000, 250);

  beforeAll(async () => {
    const userApi = await users.start();
    cardIssue = await startCardIssue({
      label: 'monitoring_prometheus_card_issue',
      clock,
      env: {
        SCHEDULER_ENABLED: 'false',
        USER_API_URL: `${userApi}`,
        // The operation service is gone, and a message is given up at its first failure.
        OPERATION_API_URL: `http://127.0.0.1:${await closedPort()}/operation-api`,
        OUTBOX_MAX_ATTEMPTS: '1',
        OUTBOX_TICK_MS: '200',
        DOWNSTREAM_RETRIES: '0',
      },
    });
    registration = await startClientRegistration({ label: 'monitoring_prometheus_registration' });
    prometheus = await startPrometheus({
      'card-issue': new URL(cardIssue.url).host,
      'client-registration': new URL(registration.url).host,
    });
  });
  afterAll(async () => {
    await prometheus?.stop();
    await cardIssue?.close();
    await registration?.close();
    await users.stop();
  });

  it('scrapes both services', async () => {
    await eventually(
      async () => (await query(prometheus.url, 'up == 1')).length === 2,
      30_000,
      250,
    );
  });

  it('the recording rules and every alert evaluate against the real series; the ones whose condition holds go pending', async () => {
    // Some registration traffic (unknown clients), scraped, then more.
    await fetch(`${registration.url}/api/clients/unknown-client`);
    await scraped('http_requests_total{job="client-registration"}');
    await fetch(`${registration.url}/api/clients/unknown-client`);
    const owners = await Promise.all([1, 2, 3].map(() => createUser(cardIssue.url)));
    // Normal traffic first, scraped, so what follows is a rise Prometheus sees as a rate.
    for (const owner of owners) expect(await postCard(cardIssue.url, owner)).toBe(201);
    await scraped(
      'http_requests_total{job="card-issue",route="/api/v1/card-issue",status_class="2xx"}',
    );
    // Slow: the p99 goes past 1 s.
    users.mode = 'slow';
    expect(await Promise.all(owners.map((owner) => postCard(cardIssue.url, owner)))).toEqual([
      201, 201, 201,
    ]);
    // Failing: the card issue POST answers 503; one, scraped, then more.
    users.mode = 'down';
    expect(await postCard(cardIssue.url, owners[0])).toBe(503);
    await scraped('http_requests_total{job="card-issue",status_class="5xx"}');
    for (const owner of owners) expect(await postCard(cardIssue.url, owner)).toBe(503);
    // The requests are an hour overdue for their move; the registration database is gone.
    clock.offsetMs = 3_600_000;
    await registration.dataSource.destroy();

    const expectedPending: Record<string, Record<string, string>> = {
      BankServiceHigh5xxRatio: { job: 'card-issue' },
      BankServiceHighLatencyP99: { job: 'card-issue' },
      CardIssueOutboxDeadLetters: { job: 'card-issue' },
      CardIssueSchedulerLag: { job: 'card-issue' },
      BankServiceDatabaseDown: { job: 'client-registration' },
    };
    let states: RuleState[] = [];
    await eventually(
      async () => {
        states = await rules(prometheus.url);
        return Object.entries(expectedPending).every(([alert, labels]) =>
          states.some(
            (rule) =>
              rule.name === alert &&
              (rule.alerts ?? []).some((a) =>
                Object.entries(labels).every(([k, v]) => a.labels[k] === v),
              ),
          ),
        );
      },
      60_000,
      500,
    ).catch(() => undefined);
    const active = Object.fromEntries(
      states
        .filter((rule) => rule.type === 'alerting')
        .map((rule) => [rule.name, (rule.alerts ?? []).map((a) => `${a.labels.job}:${a.state}`)]),
    );
    expect(active).toEqual({
      BankServiceHigh5xxRatio: ['card-issue:pending'],
      BankServiceHighLatencyP99: ['card-issue:pending'],
      CardIssueOutboxStuck: [],
      CardIssueOutboxDeadLetters: ['card-issue:pending'],
      CardIssueSchedulerLag: ['card-issue:pending'],
      BankServiceDatabaseDown: ['client-registration:pending'],
      BankServiceMemoryNearLimit: [],
      BankServiceDown: [],
    });
    // No rule failed to evaluate.
    expect(states.filter((rule) => rule.health !== 'ok')).toEqual([]);

    // The recorded series exist for both services, and the quiet alert reads a real series.
    const rate = await query(prometheus.url, 'job:http_requests:rate5m');
    expect(rate.map((r) => r.metric.job).sort()).toEqual(['card-issue', 'client-registration']);
    const ratio = await query(
      prometheus.url,
      'job:http_requests_5xx:ratio_rate5m{job="card-issue"}',
    );
    expect(Number(ratio[0].value[1])).toBeGreaterThan(0.05);
    const p99 = await query(
      prometheus.url,
      'job:http_request_duration_seconds:p99_5m{job="card-issue"}',
    );
    expect(Number(p99[0].value[1])).toBeGreaterThan(1);
    const oldest = await query(
      prometheus.url,
      'max by (namespace, job) (card_issue_outbox_oldest_pending_age_seconds)',
    );
    expect(oldest.map((r) => [r.metric.job, r.value[1]])).toEqual([['card-issue', '0']]);
  });
});
