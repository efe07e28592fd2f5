import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import {
  eventually,
  figureDatabase,
  FiguresTable,
  formatMs,
  RunningTestService,
  TestEnvironment,
} from '@bank/shared/testing';
import { startCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';
import { startWebhookReceiver, WebhookReceiver } from '../../test/webhook-receiver';
import { WebhookDispatcherService } from './webhook-dispatcher.service';

const CARDS = '/api/v1/card-issue';
const API = '/api/v1/webhook-subscriptions';
const figures = new FiguresTable('Webhook delivery: one tenant against the others');

/**
 * A receiver that accepts every TCP connection and never answers (nor closes it): each attempt
 * to it lasts its whole WEBHOOK_TIMEOUT_MS.
 */
interface SilentReceiver {
  url: string;
  /** Connections it accepted. */
  accepted(): number;
  stop(): Promise<void>;
}

async function startSilentReceiver(): Promise<SilentReceiver> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('data', () => undefined); // read the request, answer nothing
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/never`,
    accepted: () => accepted,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

describe('webhook delivery across subscriptions (e2e)', () => {
  const receivers: WebhookReceiver[] = [];
  const silent: SilentReceiver[] = [];
  const services: RunningTestService[] = [];
  const boot = async (env: TestEnvironment = {}) => {
    const t = await startCardIssue({
      label: 'card_issue_webhook_fairness',
      env: {
        SCHEDULER_ENABLED: 'false',
        OUTBOX_TICK_MS: '100',
        WEBHOOK_ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
        ...env,
      },
    });
    services.push(t);
    return t;
  };
  const receiver = async () => {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  };
  const subscribe = async (t: RunningTestService, url: string, eventTypes: string[]) => {
    const res = await request(t.url).post(API).send({ url, eventTypes });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };

  afterAll(async () => {
    for (const t of services) await t.close();
    for (const r of receivers) await r.stop();
    for (const s of silent) await s.stop();
    figures.print();
  });

  it('20 subscriptions to a receiver that never answers leave a healthy subscription its deliveries', async () => {
    // The defaults that matter here: 16 deliveries in flight per process, 2 per subscription,
    // 5 s per attempt.
    const t = await boot();
    const never = await startSilentReceiver();
    silent.push(never);
    const healthy = await receiver();
    const owner = await createUser(t.url);
    for (let i = 0; i < 20; i++) await subscribe(t, never.url, ['card_issue.created']);
    const healthySub = await subscribe(t, healthy.url, ['card_issue.created']);
    healthy.secrets = [healthySub.secret];

    const postedAt = new Map<string, number>();
    const postTwelve = async () => {
      for (let i = 0; i < 12; i++) {
        const res = await request(t.url).post(CARDS).send(selfVirtual(owner)).expect(201);
        postedAt.set(res.body.requestId as string, Date.now());
      }
    };
    /** The healthy receiver's events after their POST, ms, sorted (the first `from` left out). */
    const latencies = (from: number) =>
      healthy
        .unique()
        .slice(from)
        .map((event) => {
          const arrived = healthy.received.find((w) => w.body.id === event.id)!.receivedAt;
          return arrived - postedAt.get(event.data.requestId)!;
        })
        .sort((a, b) => a - b);
    const summary = (values: number[]) =>
      `p50 ${formatMs(percentile(values, 50))}, max ${formatMs(values[values.length - 1])}`;

    // All 21 subscriptions are new: none is known to answer, so the first round gives each one
    // delivery, and the healthy one may be among the 5 left to the next round, one attempt
    // timeout later. Before: p50 29 s, the slowest 53 s, and 2 of 12 not delivered in 64 s.
    await postTwelve();
    await eventually(async () => healthy.unique().length === 12, 15_000);
    const first = latencies(0);
    const failingCount = async () => {
      const [{ n }] = await t.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM webhook_subscriptions WHERE consecutive_failures > 0`,
      );
      return n;
    };
    await eventually(async () => (await failingCount()) === 20, 20_000);
    // Then the 20 are failing: each backs off after every failure and has at most one attempt
    // out, all of them together at most 8 of the 16 slots, and the healthy subscription, now
    // known to answer, is served first in every round.
    await postTwelve();
    await eventually(async () => healthy.unique().length === 24, 10_000);
    const then = latencies(12);
    expect(healthy.rejected()).toEqual([]);
    expect(never.accepted()).toBeGreaterThanOrEqual(20);
    figures.add({
      scenario:
        '20 subscriptions to a receiver that never answers, 1 healthy; defaults (16 slots, 2 per subscription, 5 s)',
      database: figureDatabase(t.db),
      sent: '2 × 12 events per subscription',
      answered: `healthy: 24 of 24`,
      stored: `never-answering receiver: ${never.accepted()} connections`,
      lost: 0,
      orphans: 0,
      recovered: `healthy events after their POST: all 21 new ${summary(first)}; once the 20 were failing ${summary(then)}`,
    });
  });

  it('caps the number of subscriptions (WEBHOOK_MAX_SUBSCRIPTIONS): one more is a 409, also when created at once', async () => {
    const t = await boot({ WEBHOOKS_ENABLED: 'false', WEBHOOK_MAX_SUBSCRIPTIONS: '3' });
    const url = 'https://receiver.example.com/hook';
    const first = await subscribe(t, url, ['card_issue.created']);
    await subscribe(t, url, ['card_issue.created']);
    await subscribe(t, url, ['card_issue.created']);
    const refused = await request(t.url)
      .post(API)
      .send({ url, eventTypes: ['card_issue.created'] });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      timestamp: expect.any(String),
      status: 409,
      error: 'Conflict',
      message: expect.stringMatching(/at most 3 webhook subscriptions/),
    });
    // Disabled ones count too; deleting one makes room for exactly one.
    await request(t.url).patch(`${API}/${first.id}`).send({ enabled: false }).expect(200);
    expect(
      (
        await request(t.url)
          .post(API)
          .send({ url, eventTypes: ['card_issue.created'] })
      ).status,
    ).toBe(409);
    await request(t.url).delete(`${API}/${first.id}`).expect(204);
    const racing = await Promise.all(
      Array.from({ length: 6 }, () =>
        request(t.url)
          .post(API)
          .send({ url, eventTypes: ['card_issue.created'] }),
      ),
    );
    expect(racing.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const [{ n }] = await t.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM webhook_subscriptions`,
    );
    expect(n).toBe(3);
  });

  it('disables a subscription whose attempts have all failed for WEBHOOK_AUTO_DISABLE_HOURS, holds its deliveries, and resumes them when it is enabled again', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const t = await boot({
      WEBHOOK_TICK_MS: '50',
      WEBHOOK_RETRY_BASE_MS: '20',
      WEBHOOK_RETRY_MAX_MS: '100',
      WEBHOOK_MAX_ATTEMPTS: '1000',
    });
    try {
      const owner = await createUser(t.url);
      const failing = await receiver();
      const sub = await subscribe(t, failing.url, ['card_issue.created']);
      failing.secrets = [sub.secret];
      failing.behaviour = () => ({ status: 503 });
      const get = async () => (await request(t.url).get(`${API}/${sub.id}`).expect(200)).body;

      const firstRequest = (await request(t.url).post(CARDS).send(selfVirtual(owner)).expect(201))
        .body.requestId as string;
      await eventually(async () => failing.received.length >= 2);
      const whileFailing = await get();
      expect(whileFailing).toMatchObject({
        enabled: true,
        autoDisabledAt: null,
        failingSince: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(whileFailing.consecutiveFailures).toBeGreaterThanOrEqual(1);

      // A day of failures, without waiting one: the run of failures started 25 hours ago.
      await t.dataSource.query(
        `UPDATE webhook_subscriptions SET failing_since = now() - interval '25 hours' WHERE id = $1`,
        [sub.id],
      );
      await eventually(async () => (await get()).enabled === false);
      const disabled = await get();
      expect(disabled).toMatchObject({
        enabled: false,
        autoDisabledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({ subscriptionId: sub.id }),
        expect.stringMatching(/^Webhook subscription disabled/),
      );

      // Disabled: no event is written for it, and its pending delivery is held, not sent.
      await request(t.url).post(CARDS).send(selfVirtual(owner)).expect(201);
      const attempts = failing.received.length;
      await t.dataSource.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE subscription_id = $1 AND state = 'PENDING'`,
        [sub.id],
      );
      await t.dataSource.query(`UPDATE webhook_subscriptions SET retry_at = NULL WHERE id = $1`, [
        sub.id,
      ]);
      const dispatcher = t.app.get(WebhookDispatcherService);
      await dispatcher.pump();
      await dispatcher.settled();
      expect(failing.received.length).toBe(attempts);
      const rows = await t.dataSource.query<{ request_id: string; state: string }[]>(
        `SELECT request_id, state FROM webhook_deliveries WHERE subscription_id = $1`,
        [sub.id],
      );
      expect(rows).toEqual([{ request_id: firstRequest, state: 'PENDING' }]);

      // Enabled again (the receiver fixed): a fresh start; the held delivery goes out.
      failing.behaviour = () => ({ status: 204 });
      const enabled = await request(t.url).patch(`${API}/${sub.id}`).send({ enabled: true });
      expect(enabled.status).toBe(200);
      expect(enabled.body).toMatchObject({
        enabled: true,
        autoDisabledAt: null,
        failingSince: null,
        consecutiveFailures: 0,
      });
      await eventually(async () =>
        failing.received.some(
          (webhook, i) => i >= attempts && webhook.body.data.requestId === firstRequest,
        ),
      );
      await eventually(async () => (await get()).failingSince === null);
      const next = (await request(t.url).post(CARDS).send(selfVirtual(owner)).expect(201)).body
        .requestId as string;
      await eventually(async () => failing.unique().some((e) => e.data.requestId === next));
      expect(failing.rejected()).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });
});
