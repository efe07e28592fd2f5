import request from 'supertest';
import { hashBody } from '@bank/shared/idempotency';
import { figureDatabase, FiguresTable, RunningTestService } from '@bank/shared/testing';
import { startClientRegistration } from '../../test/client-registration.harness';
import { passportData, registration } from '../../test/client-request.fixture';

const API = '/api/clients';

describe('Idempotency-Key of POST /api/clients (e2e)', () => {
  let t: RunningTestService;
  const figures = new FiguresTable('Registration retries (Idempotency-Key)');
  const database = () => figureDatabase(t.db);

  beforeAll(async () => {
    t = await startClientRegistration({
      label: 'client_registration_idempotency',
      env: { IDEMPOTENCY_LEASE_MS: '2000', IDEMPOTENCY_WAIT_MS: '4000' },
    });
  });

  afterAll(async () => {
    figures.print();
    await t?.close();
  });

  const post = (key: string, body: unknown) =>
    request(t.url)
      .post(API)
      .set('Idempotency-Key', key)
      .send(body as object);
  const clientsWithPassport = async (number: string) =>
    (
      await t.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM clients WHERE passport_number = $1`,
        [number],
      )
    )[0].n;

  it('a registration whose 201 was lost: the retry with the same key and body gets the same client, byte for byte', async () => {
    const body = registration({ passportData: passportData() });
    const lost = await post('reg-lost-1', body);
    expect(lost.status).toBe(201);
    const retry = await post('reg-lost-1', body);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(lost.text);
    expect(retry.body.id).toBe(lost.body.id);
    const stored = await clientsWithPassport(body.passportData.number);
    expect(stored).toBe(1);
    figures.add({
      scenario: 'Registration whose 201 was lost; retry with the same key and body',
      database: database(),
      sent: '2 POSTs',
      answered: `${lost.status}, then ${retry.status} Idempotent-Replayed: ${retry.headers['idempotent-replayed']}, same client id, same bytes`,
      stored: `${stored} client`,
      lost: 0,
      orphans: 0,
      recovered: "the client's retry",
    });
  });

  it('the same key with another body: 409 in Russian, nothing registered', async () => {
    const passport = passportData();
    await post('reg-other-1', registration({ passportData: passport })).expect(201);
    const other = passportData();
    const res = await post('reg-other-1', registration({ passportData: other }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      timestamp: expect.any(String),
      status: 409,
      error: 'Конфликт ключа идемпотентности',
      message: 'Этот Idempotency-Key уже использован с другим телом запроса',
    });
    expect(await clientsWithPassport(other.number)).toBe(0);
  });

  it('20 parallel identical requests with one key create one client and replay it', async () => {
    const body = registration({ passportData: passportData() });
    const responses = await Promise.all(Array.from({ length: 20 }, () => post('reg-par-1', body)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    const stored = await clientsWithPassport(body.passportData.number);
    expect(stored).toBe(1);
    figures.add({
      scenario: '20 parallel identical registrations with one key',
      database: database(),
      sent: '20 POSTs',
      answered: `${responses.filter((r) => r.status === 201).length} x 201, ${new Set(responses.map((r) => r.text)).size} body text, ${responses.filter((r) => r.headers['idempotent-replayed'] === 'true').length} replays`,
      stored: `${stored} client`,
      lost: 0,
      orphans: 0,
      recovered: '-',
    });
  });

  it('a key whose holder was killed is taken over once its lease runs out', async () => {
    const body = registration({ passportData: passportData() });
    await t.dataSource.query(
      `INSERT INTO client_idempotency_keys (key, request_hash, holder, locked_until, created_at)
       VALUES ('reg-killed-1', $1, gen_random_uuid(), clock_timestamp() + interval '1500 ms', now())`,
      [hashBody(body)],
    );
    const res = await post('reg-killed-1', body);
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await clientsWithPassport(body.passportData.number)).toBe(1);
  });

  it('answers 409 in Russian with Retry-After while a live holder works past the wait', async () => {
    const body = registration({ passportData: passportData() });
    await t.dataSource.query(
      `INSERT INTO client_idempotency_keys (key, request_hash, holder, locked_until, created_at)
       VALUES ('reg-live-1', $1, gen_random_uuid(), clock_timestamp() + interval '60 s', now())`,
      [hashBody(body)],
    );
    const res = await post('reg-live-1', body);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      error: 'Запрос ещё обрабатывается',
      message: 'Запрос с этим Idempotency-Key ещё обрабатывается, повторите его позже',
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(50);
  });

  it('refuses a malformed key with 400 in Russian', async () => {
    const res = await post('a b', registration({ passportData: passportData() }));
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      'Idempotency-Key: должен содержать от 1 до 255 видимых символов ASCII',
    ]);
  });

  it('a failed registration (duplicate passport) frees the key; the 409 does not name the holder', async () => {
    const passport = passportData();
    await request(t.url)
      .post(API)
      .send(registration({ passportData: passport }))
      .expect(201);
    const body = registration({ passportData: passport, lastName: 'Иванов' });
    const first = await post('reg-dup-1', body);
    expect(first.status).toBe(409);
    expect(JSON.stringify(first.body)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    const rows = await t.dataSource.query(
      `SELECT 1 FROM client_idempotency_keys WHERE key = 'reg-dup-1'`,
    );
    expect(rows).toEqual([]);
  });
});
