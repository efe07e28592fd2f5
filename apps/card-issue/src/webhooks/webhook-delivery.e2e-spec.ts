import { randomBytes, randomUUID } from 'node:crypto';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  closedPort,
  createTestDatabase,
  eventually,
  figureDatabase,
  FiguresTable,
  formatMs,
  RunningTestService,
  TestDatabase,
  TestEnvironment,
} from '@bank/shared/testing';
import { generateWebhookSecret, standardWebhookSecret } from '@bank/shared/webhooks';
import { startCardIssue } from '../../test/card-issue.harness';
import { selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';
import { publishedEventCallback } from '../../test/webhook-event-schema';
import { startWebhookReceiver, WebhookAnswer, WebhookReceiver } from '../../test/webhook-receiver';
import { StatusMovesService } from '../card-issues/status-moves.service';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDispatcherService } from './webhook-dispatcher.service';
import { WEBHOOK_EVENT_TYPES, WebhookEventBody, WebhookEventType } from './webhook-events.model';

const API = '/api/v1/card-issue';
const figures = new FiguresTable('Webhook delivery (in process)');

/** A subscription written straight into its table (the subscription API is tested on its own). */
async function subscribe(
  sql: DataSource,
  url: string,
  options: {
    eventTypes?: readonly WebhookEventType[];
    enabled?: boolean;
    secret?: string;
    previousSecret?: string;
    previousSecretExpiresAt?: Date;
  } = {},
): Promise<{ id: string; secret: string }> {
  const id = randomUUID();
  const secret = options.secret ?? generateWebhookSecret();
  await sql.query(
    `INSERT INTO webhook_subscriptions (id, url, event_types, enabled, secret, previous_secret,
                                        previous_secret_expires_at, created_at, updated_at)
     VALUES ($1, $2, $3::text[], $4, $5, $6, $7, now(), now())`,
    [
      id,
      url,
      options.eventTypes ?? WEBHOOK_EVENT_TYPES,
      options.enabled ?? true,
      secret,
      options.previousSecret ?? null,
      options.previousSecretExpiresAt ?? null,
    ],
  );
  return { id, secret };
}

/**
 * A secret as the service issued them before it signed the Standard Webhooks way: whsec_ +
 * unpadded base64url of 32 bytes. This one has a - or _, which no standard base64 decoder takes.
 */
function secretIssuedBefore(): string {
  for (;;) {
    const encoded = randomBytes(32).toString('base64url');
    if (/[-_]/.test(encoded)) return `whsec_${encoded}`;
  }
}

async function deliveryStates(
  sql: DataSource,
  subscriptionId: string,
): Promise<Record<string, number>> {
  const rows = await sql.query<{ state: string; n: number }[]>(
    `SELECT state, count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1 GROUP BY state`,
    [subscriptionId],
  );
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

/** The event ids stored for a subscription, in delivery order per request (id order). */
async function storedEvents(
  sql: DataSource,
  subscriptionId: string,
): Promise<{ eventId: string; requestId: string; sequence: number; eventType: string }[]> {
  return sql.query(
    `SELECT event_id AS "eventId", request_id AS "requestId", sequence, event_type AS "eventType"
     FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id`,
    [subscriptionId],
  );
}

/**
 * Each request's events in the order they first arrived must be its stored order: sequence
 * never goes back, and within one change status_changed comes before failed.
 */
function expectInOrderPerRequest(
  arrived: WebhookEventBody[],
  stored: { eventId: string; requestId: string }[],
): void {
  const byRequest = (ids: { id: string; requestId: string }[]) => {
    const map = new Map<string, string[]>();
    for (const { id, requestId } of ids) map.set(requestId, [...(map.get(requestId) ?? []), id]);
    return map;
  };
  const got = byRequest(
    arrived.map((event) => ({ id: event.id, requestId: event.data.requestId })),
  );
  const want = byRequest(
    stored.map((event) => ({ id: event.eventId, requestId: event.requestId })),
  );
  expect(Object.fromEntries(got)).toEqual(Object.fromEntries(want));
}

/** A gate a slow receiver holds its answers behind until the test opens it. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open };
}

describe('webhook delivery (e2e)', () => {
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  };
  const boot = (env: TestEnvironment = {}, db?: TestDatabase) =>
    startCardIssue({
      db,
      label: 'card_issue_webhooks',
      env: {
        SCHEDULER_ENABLED: 'false',
        OUTBOX_TICK_MS: '100',
        WEBHOOK_TICK_MS: '50',
        WEBHOOK_RETRY_BASE_MS: '20',
        WEBHOOK_RETRY_MAX_MS: '200',
        WEBHOOK_ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
        ...env,
      },
    });

  afterAll(async () => {
    for (const r of receivers) await r.stop();
    figures.print();
  });

  it('writes the events of every change in its statement and delivers them signed, in order, to the subscriptions that want them', async () => {
    // No outbox: its recording of an operation id locks the request's row, and the manual move
    // below skips a locked row (SKIP LOCKED).
    const t = await boot({ SCHEDULER_CREATED_DELAY_MS: '0', OUTBOX_ENABLED: 'false' });
    try {
      const sql = t.dataSource;
      const owner = await createUser(t.url);
      // No subscription: nothing is written.
      await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
      expect((await sql.query(`SELECT count(*)::int AS n FROM webhook_deliveries`))[0].n).toBe(0);
      await sql.query(`UPDATE card_issue_requests SET status = 'READY'`); // out of the move below

      const all = await receiver();
      const failedOnly = await receiver();
      const disabledTarget = await receiver();
      const subAll = await subscribe(sql, all.url);
      const subFailed = await subscribe(sql, failedOnly.url, { eventTypes: ['card_issue.failed'] });
      const subDisabled = await subscribe(sql, disabledTarget.url, { enabled: false });
      all.secrets = [subAll.secret];
      failedOnly.secrets = [subFailed.secret];
      disabledTarget.secrets = [subDisabled.secret];

      const created = await request(t.url)
        .post(API)
        .set('X-Request-Id', 'webhook-walkthrough-1')
        .send(selfVirtual(owner))
        .expect(201);
      const first = created.body.requestId as string;
      await request(t.url)
        .patch(`${API}/${first}/status`)
        .send({ status: 'PROCESSING' })
        .expect(200);
      await request(t.url).patch(`${API}/${first}/status`).send({ status: 'FAILED' }).expect(200);
      const refused = await request(t.url)
        .post(API)
        .send(
          selfVirtual('XNONE1', {
            cardHolder: { userId: owner, nameless: false, embossedName: 'A' },
          }),
        )
        .expect(201);
      const second = refused.body.requestId as string;
      const third = (await request(t.url).post(API).send(selfVirtual(owner)).expect(201)).body
        .requestId as string;
      expect(await t.app.get(StatusMovesService).moveBatch()).toBe(1);
      t.app.get(WebhookDispatcherService).kick();

      // (A POST the receiver rejects holds its request's later events: stop waiting then.)
      const rejected = () => [...all.rejected(), ...failedOnly.rejected()];
      await eventually(
        async () =>
          rejected().length > 0 || (all.unique().length === 7 && failedOnly.unique().length === 2),
      );
      // Every POST verified by the standardwebhooks package and by @bank/shared/webhooks, its
      // body valid for the callback schema of openapi/card-issue.json: every event type, a
      // creation (no previous status), a failure at creation, changes by the API and the scheduler.
      expect(rejected()).toEqual([]);
      const api = (
        previous: string | null,
        status: string,
        failureReason: string | null = null,
      ) => ({
        status,
        previousStatus: previous,
        source: 'api',
        failureReason,
      });
      const codes: Record<string, string> = {
        CREATED: 'STSCI01',
        PROCESSING: 'STSCI02',
        FAILED: 'STSCI05',
      };
      const expected = (
        type: string,
        requestId: string,
        sequence: number,
        data: {
          status: string;
          previousStatus: string | null;
          source: string;
          failureReason: string | null;
        },
      ) => ({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        sequence,
        data: {
          requestId,
          status: data.status,
          statusCode: codes[data.status],
          previousStatus: data.previousStatus,
          previousStatusCode: data.previousStatus ? codes[data.previousStatus] : null,
          source: data.source,
          failureReason: data.failureReason,
        },
      });
      const setToFailed = 'Status set to FAILED through the API';
      const missing = 'User XNONE1 does not exist';
      const byRequest = (events: WebhookEventBody[], requestId: string) =>
        events.filter((event) => event.data.requestId === requestId);
      expect(byRequest(all.unique(), first)).toEqual([
        expected('card_issue.created', first, 1, api(null, 'CREATED')),
        expected('card_issue.status_changed', first, 2, api('CREATED', 'PROCESSING')),
        expected('card_issue.status_changed', first, 3, api('PROCESSING', 'FAILED', setToFailed)),
        expected('card_issue.failed', first, 3, api('PROCESSING', 'FAILED', setToFailed)),
      ]);
      expect(byRequest(all.unique(), second)).toEqual([
        expected('card_issue.failed', second, 1, api(null, 'FAILED', missing)),
      ]);
      expect(byRequest(all.unique(), third)).toEqual([
        expected('card_issue.created', third, 1, api(null, 'CREATED')),
        expected('card_issue.status_changed', third, 2, {
          status: 'PROCESSING',
          previousStatus: 'CREATED',
          source: 'scheduler',
          failureReason: null,
        }),
      ]);
      // The receiver that wants failures only gets those, under the same event ids.
      const failures = all.unique().filter((event) => event.type === 'card_issue.failed');
      // (Across requests deliveries run concurrently: only each request's order is promised.)
      const byId = (events: WebhookEventBody[]) =>
        [...events].sort((x, y) => x.id.localeCompare(y.id));
      expect(byId(failedOnly.unique())).toEqual(byId(failures));
      expect(disabledTarget.received).toHaveLength(0);
      expect(await deliveryStates(sql, subDisabled.id)).toEqual({});

      // Bodies: key order as documented, byte for byte what was signed; headers as documented.
      for (const webhook of [...all.received, ...failedOnly.received]) {
        expect(webhook.verified).toBe(true);
        expect(webhook.raw).toBe(JSON.stringify(webhook.body));
        expect(Object.keys(webhook.body)).toEqual(['id', 'type', 'createdAt', 'sequence', 'data']);
        expect(Object.keys(webhook.body.data)).toEqual([
          'requestId',
          'status',
          'statusCode',
          'previousStatus',
          'previousStatusCode',
          'source',
          'failureReason',
        ]);
        // Standard Webhooks: one `v1,<base64 HMAC-SHA256>` per secret, space-separated.
        expect(webhook.headers).toMatchObject({
          'content-type': 'application/json',
          'user-agent': 'card-issue-webhooks/1',
          'webhook-id': webhook.body.id,
          'webhook-timestamp': expect.stringMatching(/^\d+$/),
          'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
        });
        const timestamp = Number(webhook.headers['webhook-timestamp']);
        expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
      }
      // The request id of the POST travels with the events of its change.
      const createdEvent = all.received.find(
        (webhook) => webhook.body.data.requestId === first && webhook.body.sequence === 1,
      )!;
      expect(createdEvent.headers['x-request-id']).toBe('webhook-walkthrough-1');
      // createdAt is the instant of the change, as stored.
      const [{ at }] = await sql.query<{ at: string }[]>(
        `SELECT floor(extract(epoch FROM at) * 1000)::float8 AS at FROM card_issue_status_history
         WHERE request_id = $1 ORDER BY id LIMIT 1`,
        [first],
      );
      expect(createdEvent.body.createdAt).toBe(new Date(Number(at)).toISOString());

      // The log: one 2xx attempt per delivery, newest first.
      const log = await t.app
        .get(WebhookDeliveriesRepository)
        .listForSubscription(subAll.id, { limit: 50, offset: 0 });
      expect(log).toHaveLength(7);
      expect(log.map((entry) => entry.eventId)).toEqual(
        (await storedEvents(sql, subAll.id)).map((event) => event.eventId).reverse(),
      );
      for (const entry of log) {
        expect(entry).toMatchObject({
          state: 'DELIVERED',
          attempts: 1,
          nextAttemptAt: null,
          lastStatusCode: 204,
          lastError: null,
          deliveredAt: expect.any(Date),
        });
        expect(entry.attemptLog).toEqual([
          expect.objectContaining({
            attempt: 1,
            statusCode: 204,
            error: null,
            at: expect.any(Date),
          }),
        ]);
      }
    } finally {
      await t.close();
    }
  });

  it('receiver down, then up: every event arrives once it is back, each request in order', async () => {
    const t = await boot({ WEBHOOK_MAX_ATTEMPTS: '1000' });
    try {
      const sql = t.dataSource;
      const owner = await createUser(t.url);
      const down = await receiver();
      const sub = await subscribe(sql, down.url);
      down.secrets = [sub.secret];
      await down.stop();

      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const id = (await request(t.url).post(API).send(selfVirtual(owner)).expect(201)).body
          .requestId as string;
        ids.push(id);
        for (const status of ['PROCESSING', 'READY', 'FAILED']) {
          await request(t.url).patch(`${API}/${id}/status`).send({ status }).expect(200);
        }
      }
      const events = ids.length * 5; // created, 3 status_changed, failed
      // Refused connections are failed attempts; the held events of each request wait behind them.
      await eventually(async () => {
        const [{ n }] = await sql.query<{ n: number }[]>(
          `SELECT count(DISTINCT delivery_id)::int AS n FROM webhook_delivery_attempts a
           JOIN webhook_deliveries d ON d.id = a.delivery_id
           WHERE d.subscription_id = $1 AND a.attempt >= 3`,
          [sub.id],
        );
        return n === ids.length;
      });
      const [{ attempted }] = await sql.query<{ attempted: number }[]>(
        `SELECT count(DISTINCT delivery_id)::int AS attempted FROM webhook_delivery_attempts a
         JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.subscription_id = $1`,
        [sub.id],
      );
      expect(attempted).toBe(ids.length); // only the head of each request was tried
      const [failure] = await t.app
        .get(WebhookDeliveriesRepository)
        .listForSubscription(sub.id, { state: 'PENDING', limit: 1, offset: events - 1 });
      expect(failure.attemptLog[0]).toMatchObject({ statusCode: null, error: 'connection failed' });

      const upAt = Date.now();
      await down.start();
      await eventually(
        async () => (await deliveryStates(sql, sub.id)).DELIVERED === events,
        30_000,
      );
      const recovered = Date.now() - upAt;
      const stored = await storedEvents(sql, sub.id);
      expect(down.unique()).toHaveLength(events);
      expectInOrderPerRequest(down.unique(), stored);
      expect(down.rejected()).toEqual([]);
      figures.add({
        scenario: 'Receiver down (connection refused), then up',
        database: figureDatabase(t.db),
        sent: `${events} events`,
        answered: `${down.received.length} POSTs received (${down.received.length - down.unique().length} duplicates)`,
        stored: `${down.unique().length} distinct events, in order per request`,
        lost: events - down.unique().length,
        orphans: 0,
        recovered: formatMs(recovered),
      });
    } finally {
      await t.close();
    }
  });

  it('a slow receiver holds only its own slots: other subscriptions and the operation service go on', async () => {
    const t = await boot({
      WEBHOOK_CONCURRENCY: '4',
      WEBHOOK_SUBSCRIPTION_CONCURRENCY: '2',
      WEBHOOK_TIMEOUT_MS: '30000',
    });
    const held = gate();
    try {
      const sql = t.dataSource;
      const owner = await createUser(t.url);
      const slow = await receiver();
      const fast = await receiver();
      const slowSub = await subscribe(sql, slow.url);
      const fastSub = await subscribe(sql, fast.url);
      slow.secrets = [slowSub.secret];
      fast.secrets = [fastSub.secret];
      // It answers its first delivery at once: a subscription known to answer may have
      // WEBHOOK_SUBSCRIPTION_CONCURRENCY deliveries out (a new one has one until it answers).
      let answered = 0;
      slow.behaviour = async (): Promise<WebhookAnswer> => {
        if (answered++ > 0) await held.wait();
        return { status: 200 };
      };

      const started = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const id = (await request(t.url).post(API).send(selfVirtual(owner)).expect(201)).body
          .requestId as string;
        ids.push(id);
        await request(t.url)
          .patch(`${API}/${id}/status`)
          .send({ status: 'PROCESSING' })
          .expect(200);
      }
      // Everything reaches the fast receiver and the operation service while the slow one
      // holds its two slots (its answers wait on the gate, within its 30 s timeout).
      await eventually(async () => fast.unique().length === 12, 20_000);
      await eventually(async () => {
        const rows = await sql.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM operation_service.operations
           WHERE request_id = ANY($1) AND status = 'PROCESSING'`,
          [ids],
        );
        return rows[0].n === ids.length;
      }, 20_000);
      const othersDone = Date.now() - started;
      await eventually(async () => slow.received.length >= 3);
      expect(slow.received).toHaveLength(3); // the first, answered, and two held
      expect(t.app.get(WebhookDispatcherService).inFlightCount).toBe(2);
      expectInOrderPerRequest(fast.unique(), await storedEvents(sql, fastSub.id));

      held.open();
      await eventually(
        async () => (await deliveryStates(sql, slowSub.id)).DELIVERED === 12,
        20_000,
      );
      expect(slow.unique()).toHaveLength(12);
      expectInOrderPerRequest(slow.unique(), await storedEvents(sql, slowSub.id));
      figures.add({
        scenario:
          'One receiver holds every answer (2 of 4 slots); another receiver and the operation service',
        database: figureDatabase(t.db),
        sent: '12 events per subscription, 12 operation messages',
        answered: `fast: 12, operation service: 12, slow: 1 answered, 2 in flight`,
        stored: `slow: 12 after its answers were released`,
        lost: 0,
        orphans: 0,
        recovered: `others done in ${formatMs(othersDone)}`,
      });
    } finally {
      held.open();
      await t.close();
    }
  });

  it('dead-letters after WEBHOOK_MAX_ATTEMPTS, holds the request behind it, keeps a short log, and redelivers on request', async () => {
    const t = await boot({ WEBHOOK_MAX_ATTEMPTS: '3' });
    try {
      const sql = t.dataSource;
      const repository = t.app.get(WebhookDeliveriesRepository);
      const owner = await createUser(t.url);
      const failing = await receiver();
      const sub = await subscribe(sql, failing.url);
      failing.secrets = [sub.secret];
      failing.behaviour = () => ({ status: 500, body: 'x'.repeat(1_000) });

      const id = (await request(t.url).post(API).send(selfVirtual(owner)).expect(201)).body
        .requestId as string;
      await request(t.url).patch(`${API}/${id}/status`).send({ status: 'PROCESSING' }).expect(200);
      await eventually(async () => (await deliveryStates(sql, sub.id)).DEAD === 1);
      const [later, head] = await repository.listForSubscription(sub.id, { limit: 10, offset: 0 });
      expect(head).toMatchObject({
        eventType: 'card_issue.created',
        state: 'DEAD',
        attempts: 3,
        nextAttemptAt: null,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
      });
      expect(head.attemptLog.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
        [1, 500, 'HTTP 500'],
        [2, 500, 'HTTP 500'],
        [3, 500, 'HTTP 500'],
      ]);
      expect(head.attemptLog[0].responsePrefix).toBe('x'.repeat(256));
      // The status change waits behind the dead creation: never sent, no next attempt planned.
      expect(later).toMatchObject({
        eventType: 'card_issue.status_changed',
        state: 'PENDING',
        attempts: 0,
        nextAttemptAt: null,
      });
      expect(failing.received.map((webhook) => webhook.body.type)).toEqual([
        'card_issue.created',
        'card_issue.created',
        'card_issue.created',
      ]);
      expect(
        await repository.listForSubscription(sub.id, { state: 'DEAD', limit: 10, offset: 0 }),
      ).toEqual([head]);

      expect(await repository.redeliver(sub.id, later.id)).toBe('not-dead');
      expect(await repository.redeliver(randomUUID(), head.id)).toBe('not-found');
      expect(await repository.redeliver(sub.id, '999999999')).toBe('not-found');
      expect(await repository.redeliver(sub.id, 'abc')).toBe('not-found');

      failing.behaviour = () => ({ status: 202 });
      expect(await repository.redeliver(sub.id, head.id)).toBe('redelivered');
      t.app.get(WebhookDispatcherService).kick();
      await eventually(async () => (await deliveryStates(sql, sub.id)).DELIVERED === 2);
      expect(failing.received.map((webhook) => webhook.body.type)).toEqual([
        'card_issue.created',
        'card_issue.created',
        'card_issue.created',
        'card_issue.created',
        'card_issue.status_changed',
      ]);
      const [, redelivered] = await repository.listForSubscription(sub.id, {
        limit: 10,
        offset: 0,
      });
      expect(redelivered).toMatchObject({ state: 'DELIVERED', attempts: 1, lastStatusCode: 202 });
      expect(redelivered.attemptLog.map((a) => a.attempt)).toEqual([1, 2, 3, 1]);
      expect(await repository.redeliver(sub.id, head.id)).toBe('not-dead');
    } finally {
      await t.close();
    }
  });

  it('follows no redirect, times out a silent receiver, and signs with both secrets during a rotation overlap', async () => {
    const t = await boot({ WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_TIMEOUT_MS: '300' });
    try {
      const sql = t.dataSource;
      const owner = await createUser(t.url);
      const redirected = await receiver();
      const redirecting = await receiver();
      const silent = await receiver();
      const rotating = await receiver();
      const redirectSub = await subscribe(sql, redirecting.url, {
        eventTypes: ['card_issue.created'],
      });
      const silentSub = await subscribe(sql, silent.url, { eventTypes: ['card_issue.created'] });
      const oldSecret = generateWebhookSecret();
      const rotatingSub = await subscribe(sql, rotating.url, {
        eventTypes: ['card_issue.created'],
        previousSecret: oldSecret,
        previousSecretExpiresAt: new Date(Date.now() + 3_600_000),
      });
      redirecting.secrets = [redirectSub.secret];
      redirected.secrets = [redirectSub.secret];
      silent.secrets = [silentSub.secret];
      rotating.secrets = [rotatingSub.secret, oldSecret];
      redirecting.behaviour = () => ({ status: 307, headers: { Location: redirected.url } });
      silent.behaviour = () => new Promise<WebhookAnswer>(() => undefined);

      await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
      await eventually(
        async () =>
          (await deliveryStates(sql, redirectSub.id)).DEAD === 1 &&
          (await deliveryStates(sql, silentSub.id)).DEAD === 1 &&
          (await deliveryStates(sql, rotatingSub.id)).DELIVERED === 1,
      );
      const repository = t.app.get(WebhookDeliveriesRepository);
      const [redirect] = await repository.listForSubscription(redirectSub.id, {
        limit: 1,
        offset: 0,
      });
      expect(redirect).toMatchObject({ lastStatusCode: 307, lastError: 'HTTP 307' });
      expect(redirected.received).toHaveLength(0);
      const [timeout] = await repository.listForSubscription(silentSub.id, { limit: 1, offset: 0 });
      expect(timeout).toMatchObject({ lastStatusCode: null, lastError: 'timeout' });
      expect(timeout.lastLatencyMs).toBeGreaterThanOrEqual(300);
      // Both secrets sign while the overlap runs: a receiver still on the old one verifies.
      const [overlap] = rotating.received;
      expect(overlap.matchingSecrets).toEqual([rotatingSub.secret, oldSecret]);
      expect(overlap.standardMatchingSecrets).toEqual([rotatingSub.secret, oldSecret]);
      expect(overlap.headers['webhook-signature']).toMatch(/^v1,\S{44} v1,\S{44}$/);

      // Once the overlap is over, only the new secret signs.
      await sql.query(
        `UPDATE webhook_subscriptions SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
        [rotatingSub.id],
      );
      await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
      await eventually(async () => rotating.received.length === 2);
      expect(rotating.received[1].matchingSecrets).toEqual([rotatingSub.secret]);
      expect(rotating.received[1].standardMatchingSecrets).toEqual([rotatingSub.secret]);
    } finally {
      await t.close();
    }
  });

  it('keeps a subscription whose secret was issued before Standard Webhooks working, and rotate-secret re-issues it in the standard form', async () => {
    const t = await boot();
    try {
      const sql = t.dataSource;
      const owner = await createUser(t.url);
      const target = await receiver();
      const issuedBefore = secretIssuedBefore();
      const sub = await subscribe(sql, target.url, {
        eventTypes: ['card_issue.created'],
        secret: issuedBefore,
      });
      // The same key in the standard form (docs/webhooks.md "Upgrading from t=…,v1=<hex>").
      const converted = standardWebhookSecret(issuedBefore);
      expect(converted).not.toBe(issuedBefore);
      target.secrets = [issuedBefore, converted];

      await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
      await eventually(async () => target.received.length >= 1);
      expect(target.rejected()).toEqual([]);
      const [upgraded] = target.received;
      // @bank/shared/webhooks verifies with the secret string as it was issued; the reference
      // package cannot decode that string, and verifies with the converted one.
      expect(upgraded.matchingSecrets).toEqual([issuedBefore, converted]);
      expect(upgraded.standardMatchingSecrets).toEqual([converted]);

      // The re-issue: a rotation answers a secret in the standard form; during the overlap the
      // one issued before signs beside it, so the receiver switches without losing a delivery.
      const rotated = await request(t.url)
        .post(`/api/v1/webhook-subscriptions/${sub.id}/rotate-secret`)
        .expect(200);
      const reissued = rotated.body.secret as string;
      expect(reissued).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      target.secrets = [reissued, issuedBefore, converted];
      await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
      await eventually(async () => target.received.length >= 2);
      expect(target.rejected()).toEqual([]);
      const during = target.received[1];
      expect(during.headers['webhook-signature']).toMatch(/^v1,\S{44} v1,\S{44}$/);
      expect(during.matchingSecrets).toEqual([reissued, issuedBefore, converted]);
      expect(during.standardMatchingSecrets).toEqual([reissued, converted]);
    } finally {
      await t.close();
    }
  });

  it('refuses a loopback target unless configured; with WEBHOOKS_ENABLED=false writes events and sends nothing; purges delivered rows', async () => {
    const db = await createTestDatabase('card_issue_webhooks_policy');
    try {
      const target = await receiver();
      let t: RunningTestService = await boot(
        { WEBHOOK_ALLOWED_TARGET_CIDRS: '', WEBHOOK_MAX_ATTEMPTS: '1' },
        db,
      );
      let sub: { id: string; secret: string };
      try {
        const owner = await createUser(t.url);
        sub = await subscribe(t.dataSource, target.url);
        target.secrets = [sub.secret];
        await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
        await eventually(async () => (await deliveryStates(t.dataSource, sub.id)).DEAD === 1);
        const [refused] = await t.app
          .get(WebhookDeliveriesRepository)
          .listForSubscription(sub.id, { limit: 1, offset: 0 });
        expect(refused.lastError).toBe('target refused');
        expect(target.received).toHaveLength(0);
      } finally {
        await t.close();
      }

      t = await boot({ WEBHOOKS_ENABLED: 'false', WEBHOOK_RETENTION_HOURS: '1' }, db);
      try {
        const owner = await createUser(t.url);
        await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
        t.app.get(WebhookDispatcherService).kick();
        expect(await deliveryStates(t.dataSource, sub.id)).toEqual({ DEAD: 1, PENDING: 1 });
        expect(target.received).toHaveLength(0);

        // Purge: a delivery settled more than WEBHOOK_RETENTION_HOURS ago goes, with its log.
        await t.dataSource.query(
          `UPDATE webhook_deliveries SET state = 'DELIVERED', settled_at = now() - interval '2 hours'
           WHERE subscription_id = $1 AND state = 'DEAD'`,
          [sub.id],
        );
        expect(await t.app.get(WebhookDispatcherService).purgeDelivered()).toBe(1);
        expect(await deliveryStates(t.dataSource, sub.id)).toEqual({ PENDING: 1 });
        const [{ n }] = await t.dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM webhook_delivery_attempts`,
        );
        expect(n).toBe(0);
      } finally {
        await t.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('the delivery log says what failed and nothing of the network: stored and as the API returns it', async () => {
    // (2 s: time enough for a resolver to say that a name does not exist.)
    const t = await boot({ WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_TIMEOUT_MS: '2000' });
    const silent = new Set<Socket>();
    const silentServer = createNetServer((socket) =>
      silent.add(socket.on('error', () => undefined)),
    );
    try {
      const sql = t.dataSource;
      const owner = await createUser(t.url);
      await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
      const silentPort = (silentServer.address() as AddressInfo).port;
      const closed = await closedPort();
      const answering = await receiver();
      answering.behaviour = () => ({ status: 502, body: 'upstream 10.9.8.7 down' });
      // Written into the table as a client could have before these rules (or through a name).
      const targets = {
        refused: await subscribe(sql, 'http://10.20.30.40:8080/hook', {
          eventTypes: ['card_issue.created'],
        }),
        mappedPrivate: await subscribe(sql, 'http://[::ffff:a14:1e28]:8080/hook', {
          eventTypes: ['card_issue.created'],
        }),
        unresolvable: await subscribe(sql, 'http://no-such-host.invalid/hook', {
          eventTypes: ['card_issue.created'],
        }),
        closed: await subscribe(sql, `http://127.0.0.1:${closed}/hook`, {
          eventTypes: ['card_issue.created'],
        }),
        silent: await subscribe(sql, `http://127.0.0.1:${silentPort}/hook`, {
          eventTypes: ['card_issue.created'],
        }),
        answering: await subscribe(sql, answering.url, { eventTypes: ['card_issue.created'] }),
      };
      answering.secrets = [targets.answering.secret];
      const expected = {
        refused: 'target refused',
        mappedPrivate: 'target refused',
        unresolvable: 'connection failed',
        closed: 'connection failed',
        silent: 'timeout',
        answering: 'HTTP 502',
      };
      await request(t.url).post(API).send(selfVirtual(owner)).expect(201);
      const ids = Object.values(targets).map((target) => target.id);
      await eventually(async () => {
        const [{ n }] = await sql.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ANY($1) AND state = 'DEAD'`,
          [ids],
        );
        return n === ids.length;
      });

      for (const [name, target] of Object.entries(targets)) {
        const want = expected[name as keyof typeof expected];
        // Stored: the delivery's last error and its attempt's, exactly the category.
        const stored = await sql.query<{ last: string; attempt: string }[]>(
          `SELECT d.last_error AS last, a.error AS attempt FROM webhook_deliveries d
           JOIN webhook_delivery_attempts a ON a.delivery_id = d.id WHERE d.subscription_id = $1`,
          [target.id],
        );
        expect([name, stored]).toEqual([name, [{ last: want, attempt: want }]]);
        // Returned by the API.
        const log = await request(t.url)
          .get(`/api/v1/webhook-subscriptions/${target.id}/deliveries`)
          .expect(200);
        expect([name, log.body[0].lastError, log.body[0].attemptLog[0].error]).toEqual([
          name,
          want,
          want,
        ]);
      }

      // What an earlier version stored (addresses, ports, resolver answers) reads the same way.
      const earlier = targets.closed.id;
      await sql.query(
        `UPDATE webhook_deliveries SET last_error = 'ECONNREFUSED: connect ECONNREFUSED 10.0.0.7:5432'
         WHERE subscription_id = $1`,
        [earlier],
      );
      await sql.query(
        `UPDATE webhook_delivery_attempts SET error = 'target refused (address-not-allowed): db.internal resolves only to refused addresses (10.0.0.7)'
         WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE subscription_id = $1)`,
        [earlier],
      );
      const log = await request(t.url)
        .get(`/api/v1/webhook-subscriptions/${earlier}/deliveries`)
        .expect(200);
      expect([log.body[0].lastError, log.body[0].attemptLog[0].error]).toEqual([
        'connection failed',
        'target refused',
      ]);
      expect(JSON.stringify(log.body)).not.toMatch(/10\.0\.0\.7|5432|db\.internal/);
    } finally {
      for (const socket of silent) socket.destroy();
      await new Promise((resolve) => silentServer.close(resolve));
      await t.close();
    }
  });

  it('every POST of these tests verified with both verifiers and matched the published event schema', () => {
    const received = receivers.flatMap((r) => r.received);
    expect(received.length).toBeGreaterThan(0);
    expect(new Set(received.map((webhook) => webhook.body.type))).toEqual(
      new Set(WEBHOOK_EVENT_TYPES),
    );
    expect(receivers.flatMap((r) => r.rejected())).toEqual([]);
    // The answers the callback documents are the ones these tests saw the dispatcher take:
    // 2xx delivered (200, 202, 204), everything else a failed attempt (307, 500, a timeout).
    expect(Object.keys(publishedEventCallback().responses as object)).toEqual(['2XX', 'default']);
  });
});
