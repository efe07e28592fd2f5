import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startCardIssue } from '../../../test/card-issue.harness';
import { aUser } from '../../../test/users.fixture';
import { ID_ATTEMPTS, USER_ID_GENERATOR } from './users.service';

const SECRET = 'users-e2e-secret';
const USERS = '/user-api/api/v1/users';

describe('user service (e2e)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'downstream_users',
      env: { X_SECRET: SECRET },
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown) =>
    request(t.url)
      .post(USERS)
      .set('X-secret', SECRET)
      .send(body as object);

  /** Posts a user and expects a 400 whose errors hold exactly the given paths. */
  async function expectInvalid(body: unknown, paths: string[]): Promise<Record<string, string>> {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 400,
      error: 'Bad Request',
      message: 'Validation failed',
    });
    expect(Object.keys(res.body.errors).sort()).toEqual([...paths].sort());
    return res.body.errors;
  }

  describe('POST create', () => {
    it('answers 201 with the stored user and a new id X + 5 of A-Z0-9', async () => {
      const user = aUser();
      const res = await post(user);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ ...user, id: expect.stringMatching(/^X[A-Z0-9]{5}$/) });
      const read = await request(t.url).get(`${USERS}/${res.body.id}`).set('X-secret', SECRET);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
    });

    it('keeps optional middleName and apartment absent when not given', async () => {
      const user = aUser();
      delete user.middleName;
      delete user.actualAddress.apartment;
      const res = await post(user);
      expect(res.status).toBe(201);
      expect(res.body).not.toHaveProperty('middleName');
      expect(res.body.actualAddress).not.toHaveProperty('apartment');
    });

    it('accepts 150 characters in every limited text and refuses 151, naming each path', async () => {
      const at = 'a'.repeat(150);
      const address = {
        country: at,
        region: at,
        city: at,
        street: at,
        building: at,
        apartment: at,
      };
      const ok = aUser({
        firstName: at,
        middleName: at,
        lastName: at,
        embossingName: 'A'.repeat(150),
        actualAddress: address,
        registrationAddress: address,
      });
      ok.passportData.birthPlace = at;
      ok.contactInfo.email = `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(150 - 64 - 1 - 60 - 1)}`;
      expect(ok.contactInfo.email).toHaveLength(150);
      expect((await post(ok)).status).toBe(201);

      const over = 'a'.repeat(151);
      const longAddress = {
        country: over,
        region: over,
        city: over,
        street: over,
        building: over,
        apartment: over,
      };
      const bad = aUser({
        firstName: over,
        middleName: over,
        lastName: over,
        embossingName: 'A'.repeat(151),
        actualAddress: longAddress,
        registrationAddress: longAddress,
      });
      bad.passportData.birthPlace = over;
      bad.contactInfo.email = `${ok.contactInfo.email}c`;
      const addressPaths = (prefix: string) =>
        ['country', 'region', 'city', 'street', 'building', 'apartment'].map(
          (f) => `${prefix}.${f}`,
        );
      await expectInvalid(bad, [
        'firstName',
        'middleName',
        'lastName',
        'embossingName',
        'passportData.birthPlace',
        'contactInfo.email',
        ...addressPaths('actualAddress'),
        ...addressPaths('registrationAddress'),
      ]);
    });

    it('reports every missing required field by its full path', async () => {
      const user = aUser() as unknown as Record<string, unknown>;
      for (const key of ['firstName', 'lastName', 'gender', 'clientType', 'bankruptIndividual']) {
        delete user[key];
      }
      (user.passportData as Record<string, unknown>).series = undefined;
      delete (user.registrationAddress as Record<string, unknown>).building;
      await expectInvalid(
        { ...user, passportData: { ...(user.passportData as object), series: undefined } },
        [
          'firstName',
          'lastName',
          'gender',
          'clientType',
          'bankruptIndividual',
          'passportData.series',
          'registrationAddress.building',
        ],
      );
    });

    it('refuses missing nested objects', async () => {
      const user = aUser() as unknown as Record<string, unknown>;
      delete user.contactInfo;
      delete user.passportData;
      await expectInvalid(user, ['contactInfo', 'passportData']);
    });

    it.each([
      ['7916123456', 'ten digits'],
      ['791612345678', 'twelve digits'],
      ['89161234567', 'starting with 8'],
      ['7916123456a', 'a letter'],
      ['+7916123456', 'a plus sign'],
    ])('refuses phone %s (%s)', async (phone) => {
      const user = aUser();
      user.contactInfo.phone = phone;
      const errors = await expectInvalid(user, ['contactInfo.phone']);
      expect(errors['contactInfo.phone']).toContain('11 digits starting with 7');
    });

    it.each(['not-an-email', 'a@', '@example.com', 'a b@example.com'])(
      'refuses e-mail %s',
      async (email) => {
        const user = aUser();
        user.contactInfo.email = email;
        await expectInvalid(user, ['contactInfo.email']);
      },
    );

    it.each(['', 'Ivan Petrov', 'IVAN-PETROV', 'ИВАН', 'IVAN1'])(
      'refuses embossingName %p',
      async (embossingName) => {
        await expectInvalid(aUser({ embossingName }), ['embossingName']);
      },
    );

    it.each([
      ['31-02-2000', 'no such day'],
      ['2000-01-15', 'ISO layout'],
      ['1-01-2000', 'one-digit day'],
      ['15.01.2000', 'dots'],
      ['29-02-2001', 'not a leap year'],
      ['00-01-2000', 'day zero'],
      ['15-13-2000', 'month 13'],
    ])('refuses birth and issue date %s (%s)', async (date) => {
      const user = aUser();
      user.passportData.birthDate = date;
      user.passportData.issueDate = date;
      await expectInvalid(user, ['passportData.birthDate', 'passportData.issueDate']);
    });

    // The passport date rules of registration, shared (libs/shared/validation passport-dates.ts).
    it.each([
      [
        'a birth date in the future',
        '01-01-2999',
        '20-03-2010',
        ['passportData.birthDate', 'passportData.issueDate'],
      ],
      ['a birth date before 01-01-1900', '31-12-1899', '20-03-2010', ['passportData.birthDate']],
      [
        'an issue date before the birth date',
        '15-03-1990',
        '14-03-1990',
        ['passportData.issueDate'],
      ],
      ['an issue date in the future', '15-03-1990', '01-01-2999', ['passportData.issueDate']],
    ])('refuses %s', async (_name, birthDate, issueDate, paths) => {
      const user = aUser();
      user.passportData.birthDate = birthDate;
      user.passportData.issueDate = issueDate;
      await expectInvalid(user, paths);
    });

    it('accepts a birth on 01-01-1900 and an issue on the birth date', async () => {
      const user = aUser();
      user.passportData.birthDate = '01-01-1900';
      user.passportData.issueDate = '01-01-1900';
      expect((await post(user)).status).toBe(201);
    });

    // The name rule shared with registration (libs/shared/validation person-name.ts).
    it.each([
      ['firstName', '   '],
      ['lastName', '\u00a0'],
      ['middleName', '  '],
      ['firstName', 'Ivan\u0007'],
      ['lastName', 'Pet\trov'],
      ['middleName', '\u202evonavI'],
      ['firstName', 'Iv\u200ban'],
      ['embossingName', '   '],
      ['embossingName', 'IVAN\tPETROV'],
      ['embossingName', 'IVAN\nPETROV'],
    ])('refuses %s %j (blank or with a control character)', async (path, value) => {
      await expectInvalid(aUser({ [path]: value }), [path]);
    });

    it('accepts 29-02 of a leap year', async () => {
      const user = aUser();
      user.passportData.birthDate = '29-02-2000';
      expect((await post(user)).status).toBe(201);
    });

    it.each([
      ['123', '12345'],
      ['12345', '1234567'],
      ['12a4', '12345a'],
      [' 1234', '123 456'],
    ])('refuses passport series %p and number %p', async (series, number) => {
      const user = aUser();
      user.passportData.series = series;
      user.passportData.number = number;
      await expectInvalid(user, ['passportData.series', 'passportData.number']);
    });

    it('refuses values outside the enums', async () => {
      await expectInvalid(
        aUser({
          gender: 'OTHER' as never,
          clientType: 'UL' as never,
          account: 'GBP' as never,
        }),
        ['gender', 'clientType', 'account'],
      );
    });

    it.each(['UP', 'FL', 'IP'])('accepts clientType %s', async (clientType) => {
      expect((await post(aUser({ clientType: clientType as never }))).status).toBe(201);
    });

    it.each(['RUR', 'USD', 'EUR'])('accepts account %s', async (account) => {
      expect((await post(aUser({ account: account as never }))).status).toBe(201);
    });

    it.each(['M_0001', 'A_ZZ99', 'Z_A1B2'])('accepts managerPin %s', async (managerPin) => {
      expect((await post(aUser({ managerPin }))).status).toBe(201);
    });

    it.each([
      'M0001',
      'm_0001',
      'M_001',
      'M_00011',
      'MM_0001',
      'M-0001',
      'M_00a1',
      'M_0001_M_0001_M_0001X',
    ])('refuses managerPin %s', async (managerPin) => {
      await expectInvalid(aUser({ managerPin }), ['managerPin']);
    });

    it('refuses non-boolean bankrupt flags without converting them', async () => {
      await expectInvalid(
        aUser({ bankruptIndividual: 'false' as never, bankruptEntrepreneur: 0 as never }),
        ['bankruptIndividual', 'bankruptEntrepreneur'],
      );
    });

    it('refuses unknown fields, each under its own path', async () => {
      const user = { ...aUser(), id: 'XAAAAA', nickname: 'x' };
      (user.contactInfo as unknown as Record<string, unknown>).fax = '123';
      const errors = await expectInvalid(user, ['id', 'nickname', 'contactInfo.fax']);
      expect(errors.nickname).toContain('should not exist');
    });

    it('refuses a body that is not an object', async () => {
      const res = await post([aUser()]);
      expect(res.status).toBe(400);
    });
  });

  describe('passport uniqueness', () => {
    it('answers 409 naming series and number for a second user with the same passport', async () => {
      const first = aUser();
      expect((await post(first)).status).toBe(201);
      const second = aUser({ firstName: 'Other', passportData: { ...first.passportData } });
      const res = await post(second);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ status: 409, error: 'Conflict' });
      expect(res.body.message).toContain(first.passportData.series);
      expect(res.body.message).toContain(first.passportData.number);
      expect(res.body).not.toHaveProperty('errors');
    });

    it('lets exactly one of 20 parallel creations with one passport win; the others get 409', async () => {
      const passport = aUser().passportData;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(aUser({ firstName: `Parallel${i}`, passportData: { ...passport } })),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      const list = await request(t.url).get(USERS).set('X-secret', SECRET);
      const holders = (
        list.body as Array<{ passportData: { series: string; number: string } }>
      ).filter(
        (u) =>
          u.passportData.series === passport.series && u.passportData.number === passport.number,
      );
      expect(holders).toHaveLength(1);
    });
  });

  describe('Idempotency-Key', () => {
    const keyed = (body: unknown, key: string) => post(body).set('Idempotency-Key', key);

    it('answers a repeated create with the same key with the user it created, and makes no second one', async () => {
      const user = aUser();
      const first = await keyed(user, 'users-e2e-key-1');
      expect(first.status).toBe(201);
      const again = await keyed(user, 'users-e2e-key-1');
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      const parallel = await Promise.all(
        Array.from({ length: 10 }, () => keyed(user, 'users-e2e-key-1')),
      );
      expect(new Set(parallel.map((res) => res.body.id as string))).toEqual(
        new Set([first.body.id]),
      );
    });

    it('makes one user of parallel first creates with one key', async () => {
      const user = aUser();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => keyed(user, 'users-e2e-key-race')),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(10).fill(201));
      expect(new Set(answers.map((res) => res.body.id as string)).size).toBe(1);
    });

    it('answers 409 for the key with another passport, and still 409 for a passport taken without the key', async () => {
      expect((await keyed(aUser(), 'users-e2e-key-2')).status).toBe(201);
      const other = await keyed(aUser(), 'users-e2e-key-2');
      expect(other.status).toBe(409);
      expect(other.body.message).toContain('Idempotency-Key');
      const taken = aUser();
      expect((await post(taken)).status).toBe(201);
      expect((await keyed(taken, 'users-e2e-key-3')).status).toBe(409);
    });

    it('refuses a key that is not 1-255 visible ASCII characters', async () => {
      const res = await keyed(aUser(), 'x'.repeat(256));
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual({
        'Idempotency-Key': 'must be 1-255 visible ASCII characters',
      });
    });
  });

  describe('GET, list and DELETE', () => {
    it('answers 404 naming the id of an unknown user, in the card-issue error shape', async () => {
      const res = await request(t.url).get(`${USERS}/XNOPE1`).set('X-secret', SECRET);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/),
        status: 404,
        error: 'Not Found',
        message: 'User XNOPE1 not found',
      });
    });

    it('answers 404 for an id that cannot be a user id', async () => {
      const res = await request(t.url).get(`${USERS}/nope`).set('X-secret', SECRET);
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('User nope not found');
    });

    it('lists the stored users', async () => {
      const created = (await post(aUser())).body;
      const res = await request(t.url).get(USERS).set('X-secret', SECRET);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body).toContainEqual(created);
    });

    it('deletes a user with 204, then answers 404 for it', async () => {
      const { id } = (await post(aUser())).body;
      const del = await request(t.url).delete(`${USERS}/${id}`).set('X-secret', SECRET);
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expect((await request(t.url).get(`${USERS}/${id}`).set('X-secret', SECRET)).status).toBe(404);
      const again = await request(t.url).delete(`${USERS}/${id}`).set('X-secret', SECRET);
      expect(again.status).toBe(404);
      expect(again.body.message).toBe(`User ${id} not found`);
    });

    it('frees the passport of a deleted user', async () => {
      const user = aUser();
      const { id } = (await post(user)).body;
      await request(t.url).delete(`${USERS}/${id}`).set('X-secret', SECRET).expect(204);
      expect((await post(user)).status).toBe(201);
    });
  });
});

describe('user ids (e2e)', () => {
  let t: RunningTestService;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'downstream_user_ids',
      env: { X_SECRET: SECRET },
      // Randomness is the one input the test takes over, to force collisions.
      override: (builder) =>
        builder.overrideProvider(USER_ID_GENERATOR).useValue(() => ids.shift() ?? 'XLAST0'),
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown) =>
    request(t.url)
      .post(USERS)
      .set('X-secret', SECRET)
      .send(body as object);

  it('draws another id when the generated one is taken', async () => {
    ids.push('XDUP01', 'XDUP01', 'XDUP01', 'XNEW02');
    expect((await post(aUser())).body.id).toBe('XDUP01');
    const second = await post(aUser());
    expect(second.status).toBe(201);
    expect(second.body.id).toBe('XNEW02');
  });

  it('answers 503 after ten ids in a row are taken, and stores nothing', async () => {
    ids.push(...Array.from({ length: ID_ATTEMPTS }, () => 'XDUP01'));
    const res = await post(aUser());
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      status: 503,
      message: 'No free user id could be found; retry later',
    });
    expect(ids).toHaveLength(0);
    const list = await request(t.url).get(USERS).set('X-secret', SECRET);
    expect(list.body.map((u: { id: string }) => u.id).sort()).toEqual(['XDUP01', 'XNEW02']);
  });

  it('reports a passport conflict even when the id collides too', async () => {
    const user = aUser();
    ids.push('XPASS1');
    expect((await post(user)).status).toBe(201);
    ids.push('XPASS1');
    expect((await post(aUser({ passportData: { ...user.passportData } }))).status).toBe(409);
  });
});
