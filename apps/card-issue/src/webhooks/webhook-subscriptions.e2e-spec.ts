import request from 'supertest';
import { RunningTestService, startTestTokenIssuer, TestTokenIssuer } from '@bank/shared/testing';
import { BACKGROUND_OFF, startCardIssue } from '../../test/card-issue.harness';

const API = '/api/v1/webhook-subscriptions';
const TARGET = 'https://receiver.example.com/events';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
/** A Standard Webhooks secret: whsec_ + standard base64 of 32 bytes. */
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The card-issue error body with a status; `errors` only for validation failures. */
const errorBody = (status: number, error: string) => ({
  timestamp: expect.any(String),
  status,
  error,
  message: expect.any(String),
});

describe('webhook subscriptions API (e2e)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'webhook_subscriptions',
      env: BACKGROUND_OFF,
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  const create = (body: Record<string, unknown>) => request(t.url).post(API).send(body);

  it('creates a subscription and shows its secret that once: never in GET or the list', async () => {
    const created = await create({
      url: TARGET,
      eventTypes: ['card_issue.status_changed', 'card_issue.failed'],
      description: 'Partner portal',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: TARGET,
      eventTypes: ['card_issue.status_changed', 'card_issue.failed'],
      description: 'Partner portal',
      enabled: true,
      consecutiveFailures: 0,
      failingSince: null,
      autoDisabledAt: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      secret: expect.stringMatching(SECRET),
    });
    const { secret, ...shown } = created.body as Record<string, unknown>;

    const got = await request(t.url).get(`${API}/${String(shown.id)}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(shown);

    const list = await request(t.url).get(API);
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(shown);
    expect(JSON.stringify(list.body)).not.toContain(String(secret));
    expect(JSON.stringify(got.body)).not.toContain(String(secret));

    // Stored as issued: the receiver's HMAC key is this very string.
    const stored = await t.dataSource.query<{ secret: string }[]>(
      'SELECT secret FROM webhook_subscriptions WHERE id = $1',
      [shown.id],
    );
    expect(stored[0].secret).toBe(secret);
  });

  it('lists newest first, by page', async () => {
    const ids: string[] = [];
    for (const description of ['first', 'second', 'third']) {
      const res = await create({ url: TARGET, eventTypes: ['card_issue.created'], description });
      ids.push(res.body.id as string);
    }
    const all = await request(t.url).get(API).query({ limit: 1000 });
    const order = (all.body as { id: string }[]).map((s) => s.id).filter((id) => ids.includes(id));
    expect(order).toEqual([...ids].reverse());

    const page = await request(t.url).get(API).query({ limit: 1, offset: 1 });
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(1);
    expect(page.body[0].id).toBe(all.body[1].id);

    const bad = await request(t.url).get(API).query({ limit: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      ...errorBody(400, 'Bad Request'),
      errors: { limit: expect.any(String) },
    });
  });

  it('updates only the fields sent; description null clears it; enabled toggles', async () => {
    const created = await create({
      url: TARGET,
      eventTypes: ['card_issue.created'],
      description: 'old',
    });
    const id = created.body.id as string;

    const disabled = await request(t.url).patch(`${API}/${id}`).send({ enabled: false });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({
      id,
      url: TARGET,
      eventTypes: ['card_issue.created'],
      description: 'old',
      enabled: false,
    });
    expect(disabled.body).not.toHaveProperty('secret');

    const changed = await request(t.url)
      .patch(`${API}/${id}`)
      .send({
        url: 'https://other.example.com/hook',
        eventTypes: ['card_issue.failed', 'card_issue.status_changed'],
        description: null,
        enabled: true,
      });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      url: 'https://other.example.com/hook',
      eventTypes: ['card_issue.failed', 'card_issue.status_changed'],
      description: null,
      enabled: true,
      createdAt: created.body.createdAt,
    });
    expect(Date.parse(changed.body.updatedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(created.body.updatedAt as string),
    );
    expect((await request(t.url).get(`${API}/${id}`)).body).toEqual(changed.body);

    const empty = await request(t.url).patch(`${API}/${id}`).send({});
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ url: 'https://other.example.com/hook', enabled: true });
  });

  it.each([
    ['no URL', { eventTypes: ['card_issue.created'] }, 'url'],
    ['an unknown event type', { url: TARGET, eventTypes: ['card_issue.deleted'] }, 'eventTypes'],
    ['no event type', { url: TARGET, eventTypes: [] }, 'eventTypes'],
    [
      'a repeated event type',
      { url: TARGET, eventTypes: ['card_issue.created', 'card_issue.created'] },
      'eventTypes',
    ],
    ['enabled null', { url: TARGET, eventTypes: ['card_issue.created'], enabled: null }, 'enabled'],
    [
      'an unknown field',
      { url: TARGET, eventTypes: ['card_issue.created'], secret: 'mine' },
      'secret',
    ],
  ])('refuses a subscription with %s: 400 naming the field', async (_case, body, field) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      ...errorBody(400, 'Bad Request'),
      errors: { [field]: expect.any(String) },
    });
  });

  it.each([
    ['not a URL', 'receiver.example.com/events', 'url-malformed'],
    ['another scheme', 'ftp://receiver.example.com/events', 'scheme-not-allowed'],
    ['a user and password', 'https://user:pw@receiver.example.com/events', 'userinfo-not-allowed'],
    ['a loopback address', 'http://127.0.0.1:8080/events', 'address-not-allowed'],
    ['localhost', 'http://localhost:8080/events', 'address-not-allowed'],
    ['IPv6 loopback', 'http://[::1]/events', 'address-not-allowed'],
    ['an IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/events', 'address-not-allowed'],
    ['a private address', 'https://10.1.2.3/events', 'address-not-allowed'],
    ['the metadata address', 'http://169.254.169.254/latest', 'address-not-allowed'],
    ['a CGNAT address', 'https://100.64.0.1/events', 'address-not-allowed'],
  ])(
    'refuses a target URL with %s: 400 naming the rule, on create and update',
    async (_case, url, rule) => {
      const res = await create({ url, eventTypes: ['card_issue.created'] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        ...errorBody(400, 'Bad Request'),
        errors: { url: expect.stringContaining(`(${rule})`) },
      });

      const existing = await create({ url: TARGET, eventTypes: ['card_issue.created'] });
      const patched = await request(t.url)
        .patch(`${API}/${existing.body.id as string}`)
        .send({ url });
      expect(patched.status).toBe(400);
      expect(patched.body.errors).toEqual({ url: expect.stringContaining(`(${rule})`) });
      expect((await request(t.url).get(`${API}/${existing.body.id as string}`)).body.url).toBe(
        TARGET,
      );
    },
  );

  it('rotates the secret: a new one shown once, the old one kept until the overlap ends (24 h by default)', async () => {
    const created = await create({ url: TARGET, eventTypes: ['card_issue.created'] });
    const id = created.body.id as string;
    const before = Date.now();
    const rotated = await request(t.url).post(`${API}/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      secret: expect.stringMatching(SECRET),
      previousSecretExpiresAt: expect.stringMatching(ISO),
    });
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const overlapMs = Date.parse(rotated.body.previousSecretExpiresAt as string) - before;
    // 24 hours from the database's now(), give or take the round trip.
    expect(Math.abs(overlapMs - 24 * 3_600_000)).toBeLessThan(60_000);

    const stored = await t.dataSource.query<{ secret: string; previous: string }[]>(
      'SELECT secret, previous_secret AS previous FROM webhook_subscriptions WHERE id = $1',
      [id],
    );
    expect(stored[0]).toEqual({ secret: rotated.body.secret, previous: created.body.secret });
    expect(JSON.stringify((await request(t.url).get(`${API}/${id}`)).body)).not.toContain('whsec_');

    // A second rotation keeps only the secret it replaces.
    const again = await request(t.url).post(`${API}/${id}/rotate-secret`);
    const after = await t.dataSource.query<{ secret: string; previous: string }[]>(
      'SELECT secret, previous_secret AS previous FROM webhook_subscriptions WHERE id = $1',
      [id],
    );
    expect(after[0]).toEqual({ secret: again.body.secret, previous: rotated.body.secret });
  });

  it('deletes a subscription with its deliveries and their log', async () => {
    const created = await create({ url: TARGET, eventTypes: ['card_issue.created'] });
    const id = created.body.id as string;
    // A delivery and an attempt as the card issue statements and the dispatcher write them.
    const [{ deliveryId }] = await t.dataSource.query<{ deliveryId: string }[]>(
      `INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, request_id, sequence, data,
         occurred_at, next_attempt_at, created_at)
       VALUES ($1, gen_random_uuid(), 'card_issue.created', 'RCARDB25112026000001', 1, '{}', now(), now(), now())
       RETURNING id::text AS "deliveryId"`,
      [id],
    );
    await t.dataSource.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, status_code, latency_ms)
       VALUES ($1, 1, now(), 503, 12)`,
      [deliveryId],
    );

    const deleted = await request(t.url).delete(`${API}/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await request(t.url).get(`${API}/${id}`)).status).toBe(404);
    const left = await t.dataSource.query<{ deliveries: number; attempts: number }[]>(
      `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE subscription_id = $1) AS deliveries,
              (SELECT count(*)::int FROM webhook_delivery_attempts WHERE delivery_id = $2) AS attempts`,
      [id, deliveryId],
    );
    expect(left[0]).toEqual({ deliveries: 0, attempts: 0 });
    expect((await request(t.url).delete(`${API}/${id}`)).status).toBe(404);
  });

  it('answers 404 for an unknown subscription and 400 for a malformed id, in the error shape', async () => {
    const calls = (id: string) => [
      request(t.url).get(`${API}/${id}`),
      request(t.url).patch(`${API}/${id}`).send({ enabled: false }),
      request(t.url).delete(`${API}/${id}`),
      request(t.url).post(`${API}/${id}/rotate-secret`),
    ];
    for (const res of await Promise.all(calls(UNKNOWN))) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        ...errorBody(404, 'Not Found'),
        message: `Webhook subscription ${UNKNOWN} not found`,
      });
    }
    for (const res of await Promise.all(calls('not-a-uuid'))) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        ...errorBody(400, 'Bad Request'),
        errors: { id: 'must be a UUID' },
      });
    }
  });
});

/** AUTH_MODE=jwt: every subscription operation needs the scope card-issue:webhooks. */
describe('webhook subscriptions API behind bearer JWT (e2e)', () => {
  let issuer: TestTokenIssuer;
  let t: RunningTestService;

  beforeAll(async () => {
    issuer = await startTestTokenIssuer();
    t = await startCardIssue({
      label: 'webhook_subscriptions_auth',
      env: { ...BACKGROUND_OFF, ...issuer.env() },
    });
  });

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  const bearer = async (scope: string) => `Bearer ${await issuer.sign({ scope })}`;
  const operations = [
    {
      name: 'POST',
      call: () =>
        request(t.url)
          .post(API)
          .send({ url: TARGET, eventTypes: ['card_issue.created'] }),
    },
    { name: 'GET list', call: () => request(t.url).get(API) },
    { name: 'GET', call: () => request(t.url).get(`${API}/${UNKNOWN}`) },
    {
      name: 'PATCH',
      call: () => request(t.url).patch(`${API}/${UNKNOWN}`).send({ enabled: false }),
    },
    { name: 'DELETE', call: () => request(t.url).delete(`${API}/${UNKNOWN}`) },
    { name: 'rotate', call: () => request(t.url).post(`${API}/${UNKNOWN}/rotate-secret`) },
  ];

  it('answers 401 without a token and 403 without the scope, in the error shape', async () => {
    for (const operation of operations) {
      const anonymous = await operation.call();
      expect({ name: operation.name, status: anonymous.status }).toEqual({
        name: operation.name,
        status: 401,
      });
      expect(anonymous.body).toEqual(errorBody(401, 'Unauthorized'));

      const wrongScope = await operation
        .call()
        .set('Authorization', await bearer('card-issue:read card-issue:write'));
      expect({ name: operation.name, status: wrongScope.status }).toEqual({
        name: operation.name,
        status: 403,
      });
      expect(wrongScope.body).toEqual(errorBody(403, 'Forbidden'));
    }
  });

  it('lets a token with card-issue:webhooks through', async () => {
    const token = await bearer('card-issue:webhooks');
    const created = await operations[0].call().set('Authorization', token);
    expect(created.status).toBe(201);
    const got = await request(t.url)
      .get(`${API}/${created.body.id as string}`)
      .set('Authorization', token);
    expect(got.status).toBe(200);
    const unknown = await operations[2].call().set('Authorization', token);
    expect(unknown.status).toBe(404);
  });
});
