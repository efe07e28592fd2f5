import request from 'supertest';
import {
  closedPort,
  eventually,
  RunningTestService,
  Sample,
  scrape,
  valueOf,
} from '@bank/shared/testing';
import { Metrics, MetricsModule } from '@bank/shared/metrics';
import { BACKGROUND_OFF, startCardIssue } from '../test/card-issue.harness';
import { selfVirtual } from '../test/card-issue-requests.fixture';
import { createUser } from '../test/users.fixture';
import { CardIssuesScheduler } from './card-issues/card-issues.scheduler';
import { OutboxService } from './outbox/outbox.service';

const API = '/api/v1/card-issue';

describe('card-issue metrics (e2e)', () => {
  describe('on the service port', () => {
    let t: RunningTestService;
    const metrics = () => scrape(`${t.url}/metrics`);

    beforeAll(async () => {
      // Due at once, so the backlog shows the request just created; moved only when the test ticks.
      t = await startCardIssue({
        label: 'card_issue_metrics',
        env: {
          ...BACKGROUND_OFF,
          SCHEDULER_CREATED_DELAY_MS: '0',
          SCHEDULER_PROCESSING_DELAY_MS: '3600000',
        },
      });
    });
    afterAll(() => t?.close());

    it('serves the process, pool and database series in the text format', async () => {
      const res = await fetch(`${t.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const samples = await metrics();
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_p99_seconds',
        'nodejs_heap_size_used_bytes',
        'db_pool_waiting_clients',
        'db_pool_max_connections',
      ])
        expect(valueOf(samples, name)).toEqual(expect.any(Number));
      expect(valueOf(samples, 'db_up')).toBe(1);
      expect(valueOf(samples, 'db_pool_max_connections')).toBe(10);
      expect(valueOf(samples, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      // Connections held by query runners show as in use (the scrape's own queries may add to them).
      const runners = [t.dataSource.createQueryRunner(), t.dataSource.createQueryRunner()];
      for (const runner of runners) await runner.connect();
      try {
        expect(
          valueOf(await metrics(), 'db_pool_connections', { state: 'in_use' }),
        ).toBeGreaterThanOrEqual(2);
      } finally {
        for (const runner of runners) await runner.release();
      }
    });

    it('counts requests per route template, method and status class; never an id', async () => {
      const owner = await createUser(t.url);
      const created = await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
      const requestId = (created.body as { requestId: string }).requestId;
      await request(t.url).get(`${API}/${requestId}`).expect(200);
      await request(t.url).get(`${API}/${requestId}`).expect(200);
      const unknownId = `${requestId.slice(0, -3)}999`;
      await request(t.url).get(`${API}/${unknownId}`).expect(404);
      await request(t.url).get(`/no/such/${requestId}`).expect(404);
      const samples = await metrics();
      const requests = (route: string, method: string, status: string) =>
        valueOf(samples, 'http_requests_total', { route, method, status_class: status });
      expect(requests(API, 'POST', '2xx')).toBe(1);
      expect(requests(`${API}/:id`, 'GET', '2xx')).toBe(2);
      expect(requests(`${API}/:id`, 'GET', '4xx')).toBe(1);
      expect(requests('unmatched', 'GET', '4xx')).toBe(1);
      expect(
        valueOf(samples, 'http_request_duration_seconds_count', {
          route: `${API}/:id`,
          method: 'GET',
          status_class: '2xx',
        }),
      ).toBe(2);
      // The POST asked the user service (this deployment's own mount) for the owner.
      expect(
        valueOf(samples, 'downstream_requests_total', { service: 'user', outcome: '2xx' }),
      ).toBeGreaterThanOrEqual(1);
      expect(
        valueOf(samples, 'downstream_attempts_total', { service: 'user' }),
      ).toBeGreaterThanOrEqual(1);
      // Bounded labels: no request id, user id or raw URL anywhere in the exposition.
      const text = await (await fetch(`${t.url}/metrics`)).text();
      expect(text).not.toContain(requestId);
      expect(text).not.toContain(owner);
      expect(text).not.toContain(unknownId);
      expect(text).not.toContain('/no/such');
      // The probes and the scrape itself are not RED traffic.
      await request(t.url).get('/api/health/ready').expect(200);
      expect(routes(await metrics()).filter((r) => /health|metrics/.test(r))).toEqual([]);
    });

    it('counts an Idempotency-Key replay', async () => {
      const owner = await createUser(t.url);
      const body = selfVirtual(owner);
      const first = await request(t.url)
        .post(API)
        .set('Idempotency-Key', 'metrics-replay-1')
        .send(body);
      expect(first.status).toBe(201);
      const again = await request(t.url)
        .post(API)
        .set('Idempotency-Key', 'metrics-replay-1')
        .send(body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(
        valueOf(await metrics(), 'http_idempotent_replays_total', { method: 'POST', route: API }),
      ).toBe(1);
    });

    it('shows the due backlog, its oldest age and the moves of a tick', async () => {
      await eventually(
        async () => (valueOf(await metrics(), 'card_issue_scheduler_due_requests') ?? 0) >= 1,
      );
      const [{ due }] = await t.dataSource.query<{ due: number }[]>(
        `SELECT count(*)::int AS due FROM card_issue_requests WHERE status = 'CREATED'`,
      );
      expect(
        valueOf(await metrics(), 'card_issue_scheduler_oldest_due_age_seconds'),
      ).toBeGreaterThanOrEqual(0);
      t.app.get(CardIssuesScheduler).tick();
      await eventually(
        async () =>
          valueOf(await metrics(), 'card_issue_scheduler_ticks_total', { outcome: 'ok' }) === 1,
      );
      await eventually(
        async () => valueOf(await metrics(), 'card_issue_scheduler_due_requests') === 0,
      );
      const after = await metrics();
      expect(valueOf(after, 'card_issue_scheduler_moves_per_tick_sum')).toBe(due);
      expect(valueOf(after, 'card_issue_scheduler_moves_per_tick_count')).toBe(1);
      expect(valueOf(after, 'card_issue_scheduler_oldest_due_age_seconds')).toBe(0);
    });

    it('shows the outbox backlog, then its delivery', async () => {
      await eventually(
        async () => (valueOf(await metrics(), 'card_issue_outbox_pending_messages') ?? 0) >= 1,
      );
      const pending = await metrics();
      expect(valueOf(pending, 'card_issue_outbox_oldest_pending_age_seconds')).toBeGreaterThan(0);
      expect(valueOf(pending, 'card_issue_outbox_dead_messages')).toBe(0);
      await t.app.get(OutboxService).drain();
      await eventually(
        async () => valueOf(await metrics(), 'card_issue_outbox_pending_messages') === 0,
      );
      const after = await metrics();
      expect(
        valueOf(after, 'card_issue_outbox_delivery_attempts_total', {
          type: 'create',
          outcome: 'delivered',
        }),
      ).toBeGreaterThanOrEqual(1);
      expect(valueOf(after, 'card_issue_outbox_oldest_pending_age_seconds')).toBe(0);
      expect(
        valueOf(after, 'downstream_requests_total', { service: 'operation', outcome: '2xx' }),
      ).toBeGreaterThanOrEqual(1);
    });
  });

  it('counts dead letters and failed downstream calls when the operation service is gone', async () => {
    const t = await startCardIssue({
      label: 'card_issue_metrics_dead',
      env: {
        ...BACKGROUND_OFF,
        OPERATION_API_URL: `http://127.0.0.1:${await closedPort()}/operation-api`,
        OUTBOX_MAX_ATTEMPTS: '1',
      },
    });
    try {
      const owner = await createUser(t.url);
      await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
      await t.app.get(OutboxService).drain();
      await eventually(
        async () =>
          valueOf(await scrape(`${t.url}/metrics`), 'card_issue_outbox_dead_messages') === 1,
      );
      const samples = await scrape(`${t.url}/metrics`);
      expect(
        valueOf(samples, 'card_issue_outbox_delivery_attempts_total', {
          type: 'create',
          outcome: 'dead',
        }),
      ).toBe(1);
      expect(
        valueOf(samples, 'downstream_requests_total', {
          service: 'operation',
          outcome: 'network_error',
        }),
      ).toBe(1);
      expect(valueOf(samples, 'card_issue_outbox_pending_messages')).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('METRICS_PORT serves /metrics on a port of its own, not on the service port', async () => {
    const t = await startCardIssue({
      label: 'card_issue_metrics_port',
      env: { ...BACKGROUND_OFF, METRICS_PORT: '0', HOST: '127.0.0.1' },
    });
    try {
      const port = t.app.get(MetricsModule).port();
      expect(port).toEqual(expect.any(Number));
      await request(t.url).get('/api/health/live').expect(200);
      expect(valueOf(await scrape(`http://127.0.0.1:${port}/metrics`), 'db_up')).toBe(1);
      expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('METRICS_ENABLED=false: no /metrics and nothing counted', async () => {
    const t = await startCardIssue({
      label: 'card_issue_metrics_off',
      env: { ...BACKGROUND_OFF, METRICS_ENABLED: 'false' },
    });
    try {
      expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
      expect(t.app.get(MetricsModule).port()).toBeNull();
      await request(t.url).get('/api/health/live').expect(200);
      const registry = t.app.get(Metrics).registry;
      expect(registry.getSingleMetric('http_requests_total')).toBeUndefined();
      expect(registry.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it('under BASE_PATH /metrics stays at the root and the route labels carry the prefix', async () => {
    const t = await startCardIssue({
      label: 'card_issue_metrics_base',
      env: { ...BACKGROUND_OFF, BASE_PATH: '/card-issue' },
    });
    try {
      await request(t.url).get('/card-issue/api/health/live').expect(200);
      await request(t.url).get(`/card-issue${API}/not-an-id`);
      const samples = await scrape(`${t.url}/metrics`);
      expect(
        valueOf(samples, 'http_requests_total', {
          route: `/card-issue${API}/:id`,
          method: 'GET',
        }),
      ).toBe(1);
      expect((await fetch(`${t.url}/card-issue/metrics`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

function routes(samples: Sample[]): string[] {
  return [
    ...new Set(samples.filter((s) => s.name === 'http_requests_total').map((s) => s.labels.route)),
  ];
}
