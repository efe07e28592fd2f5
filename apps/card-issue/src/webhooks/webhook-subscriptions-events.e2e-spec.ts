import request from 'supertest';
import { FixedClock } from '@bank/shared/calendar';
import { eventually, RunningTestService } from '@bank/shared/testing';
import { BACKGROUND_OFF, startCardIssue } from '../../test/card-issue.harness';
import { NOW, selfVirtual } from '../../test/card-issue-requests.fixture';
import { createUser } from '../../test/users.fixture';
import { startWebhookReceiver, WebhookReceiver } from '../../test/webhook-receiver';

const API = '/api/v1/webhook-subscriptions';
const CARDS = '/api/v1/card-issue';

/**
 * The subscriptions API against real events: the card issue statements write them, the
 * dispatcher sends them to a receiver on loopback (allowed by WEBHOOK_ALLOWED_TARGET_CIDRS).
 */
describe('webhook subscriptions with events delivered (e2e)', () => {
  let t: RunningTestService;
  /** One receiver per subscription, by name; each verifies with its subscription's secret. */
  const receivers = new Map<string, WebhookReceiver>();
  let owner: string;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'webhook_subscription_events',
      env: {
        ...BACKGROUND_OFF,
        // The dispatcher delivers: what these tests look at.
        WEBHOOKS_ENABLED: 'true',
        WEBHOOK_ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
        WEBHOOK_TICK_MS: '50',
        WEBHOOK_RETRY_BASE_MS: '10',
        WEBHOOK_RETRY_MAX_MS: '20',
        WEBHOOK_MAX_ATTEMPTS: '2',
      },
      clock: new FixedClock(NOW),
    });
    owner = await createUser(t.url);
  });

  afterAll(async () => {
    await t?.close();
    for (const receiver of receivers.values()) await receiver.stop();
  });

  const subscribe = async (name: string, eventTypes: string[], enabled = true) => {
    const receiver = await startWebhookReceiver();
    receivers.set(name, receiver);
    const res = await request(t.url).post(API).send({ url: receiver.url, eventTypes, enabled });
    expect(res.status).toBe(201);
    receiver.secrets = [res.body.secret as string];
    return res.body as { id: string; secret: string };
  };
  const receiverOf = (name: string) => receivers.get(name) as WebhookReceiver;
  const createCard = async () => {
    const res = await request(t.url).post(CARDS).send(selfVirtual(owner));
    expect(res.status).toBe(201);
    return res.body.requestId as string;
  };
  const setStatus = async (requestId: string, status: string) => {
    const res = await request(t.url).patch(`${CARDS}/${requestId}/status`).send({ status });
    expect(res.status).toBe(200);
  };
  const deliveries = async (id: string, query: Record<string, string> = {}) => {
    const res = await request(t.url).get(`${API}/${id}/deliveries`).query(query);
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown>[];
  };
  /** What the receiver got for one request, duplicates included, each verified against its secrets. */
  const eventsOf = (name: string, requestId: string) =>
    receiverOf(name).received.filter((r) => r.body.data.requestId === requestId);

  it('writes no event for a disabled subscription; enabling it resumes with the next change', async () => {
    await subscribe('/on', ['card_issue.created', 'card_issue.status_changed']);
    const off = await subscribe('/off', ['card_issue.created', 'card_issue.status_changed'], false);

    const requestId = await createCard();
    await eventually(async () => eventsOf('/on', requestId).length === 1, 10_000);
    expect(await deliveries(off.id)).toEqual([]);
    expect(eventsOf('/off', requestId)).toEqual([]);

    const enabled = await request(t.url).patch(`${API}/${off.id}`).send({ enabled: true });
    expect(enabled.body.enabled).toBe(true);
    await setStatus(requestId, 'PROCESSING');
    await eventually(async () => eventsOf('/off', requestId).length === 1, 10_000);
    expect(eventsOf('/off', requestId)[0].body).toMatchObject({
      type: 'card_issue.status_changed',
      sequence: 2,
      data: { requestId, status: 'PROCESSING', previousStatus: 'CREATED', source: 'api' },
    });
    // Both subscriptions got the one event of that change, under the same id.
    await eventually(async () => eventsOf('/on', requestId).length === 2, 10_000);
    expect(eventsOf('/on', requestId)[1].body.id).toBe(eventsOf('/off', requestId)[0].body.id);

    // Disabled again: the next change writes nothing for it.
    await request(t.url).patch(`${API}/${off.id}`).send({ enabled: false });
    await setStatus(requestId, 'READY');
    await eventually(async () => eventsOf('/on', requestId).length === 3, 10_000);
    expect((await deliveries(off.id)).map((d) => d.sequence)).toEqual([2]);
    for (const name of ['/on', '/off']) expect(receiverOf(name).rejected()).toEqual([]);
  });

  it('signs with both secrets during the rotation overlap, with the new one only after it', async () => {
    const sub = await subscribe('/rotated', ['card_issue.created', 'card_issue.status_changed']);
    const rotated = await request(t.url).post(`${API}/${sub.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;

    const receiver = receiverOf('/rotated');
    receiver.secrets = [sub.secret, newSecret];

    const requestId = await createCard();
    await eventually(async () => eventsOf('/rotated', requestId).length === 1, 10_000);
    const during = eventsOf('/rotated', requestId)[0];
    // Standard Webhooks: the new secret's signature first, then the replaced one's.
    expect(during.headers['webhook-signature']).toMatch(/^v1,\S{44} v1,\S{44}$/);
    expect(during.matchingSecrets).toEqual([sub.secret, newSecret]);
    expect(during.standardMatchingSecrets).toEqual([sub.secret, newSecret]);

    // The overlap runs out (as WEBHOOK_SECRET_OVERLAP_HOURS would, without waiting a day).
    await t.dataSource.query(
      `UPDATE webhook_subscriptions SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
      [sub.id],
    );
    await setStatus(requestId, 'PROCESSING');
    await eventually(async () => eventsOf('/rotated', requestId).length === 2, 10_000);
    const after = eventsOf('/rotated', requestId)[1];
    expect(after.headers['webhook-signature']).toMatch(/^v1,\S{44}$/);
    expect(after.matchingSecrets).toEqual([newSecret]);
    expect(after.standardMatchingSecrets).toEqual([newSecret]);
  });

  it('shows the delivery log with every attempt, and redelivers a dead-lettered delivery', async () => {
    const sub = await subscribe('/dead', ['card_issue.created']);
    receiverOf('/dead').behaviour = () => ({ status: 500 });
    const requestId = await createCard();

    // WEBHOOK_MAX_ATTEMPTS=2: two 500s, then DEAD.
    let log: Record<string, unknown>[] = [];
    await eventually(async () => {
      log = await deliveries(sub.id);
      return log.length === 1 && log[0].state === 'DEAD';
    }, 10_000);
    expect(log[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      eventId: eventsOf('/dead', requestId)[0].body.id,
      eventType: 'card_issue.created',
      requestId,
      sequence: 1,
      state: 'DEAD',
      attempts: 2,
      nextAttemptAt: null,
      lastAttemptAt: expect.any(String),
      lastStatusCode: 500,
      lastLatencyMs: expect.any(Number),
      lastError: expect.any(String),
      createdAt: expect.any(String),
      deliveredAt: null,
      attemptLog: [
        {
          attempt: 1,
          at: expect.any(String),
          statusCode: 500,
          latencyMs: expect.any(Number),
          error: expect.any(String),
        },
        {
          attempt: 2,
          at: expect.any(String),
          statusCode: 500,
          latencyMs: expect.any(Number),
          error: expect.any(String),
        },
      ],
    });
    expect(await deliveries(sub.id, { state: 'DELIVERED' })).toEqual([]);
    expect((await deliveries(sub.id, { state: 'DEAD' })).map((d) => d.id)).toEqual([log[0].id]);
    const deliveryId = log[0].id as string;

    receiverOf('/dead').behaviour = () => ({ status: 204 });
    const redelivered = await request(t.url).post(
      `${API}/${sub.id}/deliveries/${deliveryId}/redeliver`,
    );
    expect(redelivered.status).toBe(202);
    await eventually(async () => (await deliveries(sub.id))[0].state === 'DELIVERED', 10_000);
    const [delivered] = await deliveries(sub.id);
    expect(delivered).toMatchObject({
      attempts: 1,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(delivered.deliveredAt).toEqual(expect.any(String));
    // The same event (same id and body) each time; the log keeps the attempts before the redelivery.
    expect(new Set(eventsOf('/dead', requestId).map((r) => r.raw)).size).toBe(1);
    // Two 500s before the redelivery, then the 204 (by time: the numbers restart at the redelivery).
    const byTime = [...(delivered.attemptLog as { at: string; statusCode: number }[])].sort(
      (a, b) => Date.parse(a.at) - Date.parse(b.at),
    );
    expect(byTime.map((a) => a.statusCode)).toEqual([500, 500, 204]);

    const again = await request(t.url).post(`${API}/${sub.id}/deliveries/${deliveryId}/redeliver`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 409, error: 'Conflict' });
    const unknown = await request(t.url).post(`${API}/${sub.id}/deliveries/999999999/redeliver`);
    expect(unknown.status).toBe(404);
    const malformed = await request(t.url).post(`${API}/${sub.id}/deliveries/abc/redeliver`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual({ deliveryId: expect.any(String) });
    const otherSubscription = await subscribe('/other', ['card_issue.created']);
    const foreign = await request(t.url).post(
      `${API}/${otherSubscription.id}/deliveries/${deliveryId}/redeliver`,
    );
    expect(foreign.status).toBe(404);
    const badState = await request(t.url)
      .get(`${API}/${sub.id}/deliveries`)
      .query({ state: 'LOST' });
    expect(badState.status).toBe(400);
    expect(badState.body.errors).toEqual({ state: expect.any(String) });
    const noSubscription = await request(t.url).get(
      `${API}/00000000-0000-4000-8000-000000000000/deliveries`,
    );
    expect(noSubscription.status).toBe(404);
  });

  it('deletes a subscription with the deliveries written for it', async () => {
    const sub = await subscribe('/deleted', ['card_issue.created']);
    const requestId = await createCard();
    await eventually(async () => eventsOf('/deleted', requestId).length === 1, 10_000);
    await eventually(async () => (await deliveries(sub.id))[0]?.state === 'DELIVERED', 10_000);
    expect((await request(t.url).delete(`${API}/${sub.id}`)).status).toBe(204);
    const [{ n }] = await t.dataSource.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1',
      [sub.id],
    );
    expect(n).toBe(0);
    expect((await request(t.url).get(`${API}/${sub.id}/deliveries`)).status).toBe(404);
  });

  it('every POST of these tests verified with both verifiers and matched the published event schema', () => {
    const all = [...receivers.values()];
    expect(all.flatMap((receiver) => receiver.received).length).toBeGreaterThan(0);
    expect(all.flatMap((receiver) => receiver.rejected())).toEqual([]);
  });
});
