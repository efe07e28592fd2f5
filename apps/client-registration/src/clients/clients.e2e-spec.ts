import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startClientRegistration } from '../../test/client-registration.harness';
import { NOW, passportData, registration } from '../../test/client-request.fixture';
import { AccountNumberGenerator } from './account-number.generator';
import { FixedClock } from '@bank/shared/calendar';

interface DocumentedResponse {
  content: Record<string, { schema: { $ref: string }; examples?: object }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

/** Draws account numbers from a script first, then falls back to the real generator. */
class ScriptedAccountNumbers extends AccountNumberGenerator {
  readonly script: string[] = [];

  override next(currency: Parameters<AccountNumberGenerator['next']>[0]): string {
    return this.script.shift() ?? super.next(currency);
  }
}

describe('clients API (e2e)', () => {
  let t: RunningTestService;
  const clock = new FixedClock(NOW);
  const accountNumbers = new ScriptedAccountNumbers();

  beforeAll(async () => {
    t = await startClientRegistration({
      label: 'client_registration_clients',
      clock,
      override: (builder) =>
        builder.overrideProvider(AccountNumberGenerator).useValue(accountNumbers),
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(() => clock.set(NOW));

  const post = (body: unknown) =>
    request(t.url)
      .post('/api/clients')
      .send(body as object);

  describe('POST /api/clients', () => {
    it('registers a client, opens the account and answers 201 with the whole client', async () => {
      const body = registration({ account: 'USD' });
      const res = await post(body);

      expect(res.status).toBe(201);
      const { account, ...requestFields } = body;
      expect(res.body).toEqual({
        ...requestFields,
        id: expect.stringMatching(UUID),
        account: {
          accountNumber: expect.stringMatching(/^40702840\d{12}$/),
          currency: account,
          accountingMode: 100,
        },
        registrationDate: '23-11-2026 15:00:00',
        actualizationDate: '23-11-2026 15:00:00',
      });
    });

    it.each([
      ['RUR', '810'],
      ['USD', '840'],
      ['EUR', '978'],
    ])('opens a %s account whose number carries code %s', async (currency, code) => {
      const res = await post(registration({ account: currency }));
      expect(res.status).toBe(201);
      expect(res.body.account.accountNumber).toHaveLength(20);
      expect(res.body.account.accountNumber.slice(0, 8)).toBe(`40702${code}`);
      expect(res.body.account.currency).toBe(currency);
    });

    it('accepts every seeded manager PIN', async () => {
      for (const pin of ['M_0001', 'M_0002', 'M_0003', 'M_0004', 'M_0005']) {
        const res = await post(registration({ managerPin: pin }));
        expect(res.status).toBe(201);
        expect(res.body.managerPin).toBe(pin);
      }
    });

    it('refuses a well-formed unknown PIN with 400 manager-not-found naming the PIN', async () => {
      const res = await post(registration({ managerPin: 'X_9999' }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        timestamp: expect.stringMatching(TIMESTAMP),
        status: 400,
        error: 'Менеджер не найден',
        message: expect.stringContaining('X_9999'),
      });
    });

    it('refuses a second client with the same passport: 409 naming series and number', async () => {
      const passport = passportData();
      expect((await post(registration({ passportData: passport }))).status).toBe(201);
      const res = await post(
        registration({ passportData: { ...passport, birthPlace: 'г. Тверь' }, lastName: 'Иванов' }),
      );
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        timestamp: expect.stringMatching(TIMESTAMP),
        status: 409,
        error: 'Клиент уже зарегистрирован',
        message: `Клиент с паспортом серии ${passport.series} номер ${passport.number} уже зарегистрирован`,
      });
    });

    it('20 parallel registrations with one passport: exactly one 201 and nineteen 409', async () => {
      const passport = passportData();
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(registration({ passportData: passport, lastName: `Клиент${i}` })),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      const winner = responses.find((r) => r.status === 201)!;
      const stored = await request(t.url).get(`/api/clients/${winner.body.id}`);
      expect(stored.body.lastName).toBe(winner.body.lastName);
    });

    it('draws another account number when the first one is taken', async () => {
      const first = await post(registration({ account: 'EUR' }));
      expect(first.status).toBe(201);
      const taken = first.body.account.accountNumber as string;
      const fresh = '40702978000000000042';
      accountNumbers.script.push(taken, taken, fresh);

      const second = await post(registration({ account: 'EUR' }));
      expect(second.status).toBe(201);
      expect(second.body.account.accountNumber).toBe(fresh);
      expect(accountNumbers.script).toHaveLength(0);
    });

    it('answers 503 in Russian when every drawn account number is taken', async () => {
      const first = await post(registration({ account: 'RUR' }));
      const taken = first.body.account.accountNumber as string;
      accountNumbers.script.push(taken, taken, taken, taken, taken);

      const res = await post(registration({ account: 'RUR' }));
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('Сервис недоступен');
      expect(res.body.message).toMatch(/номер счёта/);
    });
  });

  describe('GET /api/clients/{id}', () => {
    it('returns the registered client', async () => {
      const created = await post(registration());
      const res = await request(t.url).get(`/api/clients/${created.body.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created.body);
    });

    it('answers 404 with a message naming the id', async () => {
      const id = '3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21';
      const res = await request(t.url).get(`/api/clients/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        timestamp: expect.stringMatching(TIMESTAMP),
        status: 404,
        error: 'Клиент не найден',
        message: `Клиент с id ${id} не найден`,
      });
    });

    it('answers 400 for a malformed UUID', async () => {
      const res = await request(t.url).get('/api/clients/not-a-uuid');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        status: 400,
        error: 'Ошибка валидации',
        details: ['id: должен быть UUID'],
      });
    });
  });

  describe('PUT /api/clients/{id}/passport', () => {
    const put = (id: string, body: unknown) =>
      request(t.url)
        .put(`/api/clients/${id}/passport`)
        .send(body as object);

    it('replaces the passport and moves actualizationDate only', async () => {
      const created = await post(registration());
      clock.set('2026-11-24T08:30:15.000Z');
      const newPassport = passportData({ issueDate: '01-11-2026', birthPlace: 'г. Казань' });

      const res = await put(created.body.id, { passportData: newPassport });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...created.body,
        passportData: newPassport,
        actualizationDate: '24-11-2026 11:30:15',
      });
      const read = await request(t.url).get(`/api/clients/${created.body.id}`);
      expect(read.body).toEqual(res.body);
    });

    it('keeps the same passport of the same client (no conflict with itself)', async () => {
      const passport = passportData();
      const created = await post(registration({ passportData: passport }));
      const res = await put(created.body.id, { passportData: { ...passport, birthPlace: 'Тула' } });
      expect(res.status).toBe(200);
      expect(res.body.passportData.birthPlace).toBe('Тула');
    });

    it('refuses a passport that belongs to another client: 409', async () => {
      const other = passportData();
      await post(registration({ passportData: other }));
      const created = await post(registration());
      const res = await put(created.body.id, {
        passportData: passportData({ series: other.series, number: other.number }),
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('Клиент уже зарегистрирован');
      expect(res.body.message).toContain(`серии ${other.series} номер ${other.number}`);
    });

    it('answers 404 naming the id of an unknown client', async () => {
      const id = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
      const res = await put(id, { passportData: passportData() });
      expect(res.status).toBe(404);
      expect(res.body.message).toContain(id);
    });

    it('answers 400 for a malformed UUID', async () => {
      const res = await put('12345', { passportData: passportData() });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual(['id: должен быть UUID']);
    });

    it('validates the new passport like registration, every violation at once', async () => {
      const created = await post(registration());
      const res = await put(created.body.id, {
        passportData: {
          birthDate: '31-02-2000',
          birthPlace: 'x'.repeat(121),
          issueDate: '24-11-2026',
          series: '123',
          number: '1234567',
        },
        extra: 1,
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        'extra: поле не предусмотрено',
        'passportData.birthDate: должна быть реальной датой в формате dd-MM-yyyy',
        'passportData.birthPlace: длина не должна превышать 120 символов',
        'passportData.issueDate: не может быть позже текущей даты',
        'passportData.series: должна состоять ровно из 4 цифр',
        'passportData.number: должен состоять ровно из 6 цифр',
      ]);
    });

    it('requires passportData', async () => {
      const created = await post(registration());
      const res = await put(created.body.id, {});
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual(['passportData: обязательное поле']);
    });
  });

  describe('error shape of the framework failures', () => {
    it('malformed JSON: 400 in Russian', async () => {
      const res = await request(t.url)
        .post('/api/clients')
        .set('content-type', 'application/json')
        .send('{"lastName": ');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        timestamp: expect.stringMatching(TIMESTAMP),
        status: 400,
        error: 'Некорректный запрос',
        message: 'Тело запроса не является корректным JSON',
      });
    });

    it('body over 1 MiB: 413 in Russian', async () => {
      const res = await post(registration({ lastName: 'x'.repeat(1024 * 1024 + 10) }));
      expect(res.status).toBe(413);
      expect(res.body.error).toBe('Слишком большой запрос');
    });

    it('non-JSON body: 415 in Russian', async () => {
      const res = await request(t.url)
        .post('/api/clients')
        .set('content-type', 'text/plain')
        .send('hello');
      expect(res.status).toBe(415);
      expect(res.body.error).toBe('Неподдерживаемый тип содержимого');
    });

    it('a body that is not an object: 400 validation', async () => {
      const res = await request(t.url)
        .post('/api/clients')
        .set('content-type', 'application/json')
        .send('[1, 2]');
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Ошибка валидации');
    });
  });

  describe('OpenAPI document', () => {
    it('documents every endpoint with its success and error responses', async () => {
      const doc = (await request(t.url).get('/docs-json')).body;
      const errorRef = '#/components/schemas/RegistrationErrorBody';
      const responses = (path: string, method: string) => doc.paths[path][method].responses;

      const postOp = doc.paths['/api/clients'].post;
      expect(postOp.summary).toBeTruthy();
      expect(postOp.requestBody.content['application/json'].schema.$ref).toBe(
        '#/components/schemas/RegisterClientDto',
      );
      expect(Object.keys(responses('/api/clients', 'post')).sort()).toEqual(
        // 405, 408, 429 and 503 (with Retry-After) are the platform's: another method on the path,
        // a late body, RATE_LIMIT (documented whatever the configuration), the database, a
        // shutdown; 401 (and a 403 without scope) the bearer authentication's (AUTH_MODE=jwt).
        ['201', '400', '401', '403', '405', '408', '409', '413', '415', '429', '500', '503'].sort(),
      );
      expect(Object.keys(responses('/api/clients/{id}', 'get')).sort()).toEqual(
        ['200', '400', '401', '403', '404', '405', '429', '500', '503'].sort(),
      );
      expect(Object.keys(responses('/api/clients/{id}/passport', 'put')).sort()).toEqual(
        [
          '200',
          '400',
          '401',
          '403',
          '404',
          '405',
          '408',
          '409',
          '413',
          '415',
          '429',
          '500',
          '503',
        ].sort(),
      );
      for (const [path, method] of [
        ['/api/clients', 'post'],
        ['/api/clients/{id}', 'get'],
        ['/api/clients/{id}/passport', 'put'],
      ]) {
        for (const [status, response] of Object.entries<DocumentedResponse>(
          responses(path, method),
        )) {
          const content = response.content['application/json'];
          if (status.startsWith('2')) {
            expect(content.schema.$ref).toBe('#/components/schemas/ClientResponseDto');
          } else {
            expect(content.schema.$ref).toBe(errorRef);
            expect(Object.keys(content.examples ?? {}).length).toBeGreaterThan(0);
          }
        }
      }
      const register = doc.components.schemas.RegisterClientDto;
      expect(register.required).toEqual(expect.arrayContaining(['lastName', 'managerPin']));
      expect(register.properties.lastName).toMatchObject({ maxLength: 35, example: 'Петров' });
    });
  });
});
