import request from 'supertest';
import { DataSource } from 'typeorm';
import { eventually, RunningTestService } from '@bank/shared/testing';
import { SECRET, startCardIssue } from '../../test/card-issue.harness';
import { courier, NOW, selfPlastic, selfVirtual } from '../../test/card-issue-requests.fixture';
import { aUser, createUser } from '../../test/users.fixture';
import { OutboxService } from '../outbox/outbox.service';
import { FixedClock } from '@bank/shared/calendar';

// 12:00 in Moscow on 23-11-2026: tomorrow is 24-11, today + 7 is 30-11.
const clock = new FixedClock(NOW);
const API = '/api/v1/card-issue';

describe('card issue API (e2e)', () => {
  let t: RunningTestService;
  let owner: string;
  let other: string;

  beforeAll(async () => {
    t = await startCardIssue({
      label: 'card_issue_api',
      env: { X_SECRET: SECRET, SCHEDULER_ENABLED: 'false' },
      clock,
    });
    owner = await createUser(t.url);
    other = await createUser(t.url);
  });

  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown) =>
    request(t.url)
      .post(API)
      .send(body as object);
  const countRequests = async () =>
    Number(
      (await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM card_issue_requests'))[0]
        .n,
    );

  describe('POST creates', () => {
    it('a virtual card for oneself: 201 CREATED with an id of the business date', async () => {
      const res = await post(selfVirtual(owner));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        requestId: expect.stringMatching(/^RCARDB23112026\d{6}$/),
        status: 'CREATED',
        statusCode: 'STSCI01',
        failureReason: null,
      });
      const record = await request(t.url).get(`${API}/${res.body.requestId}`);
      expect(record.status).toBe(200);
      expect(record.body).toMatchObject({
        requestId: res.body.requestId,
        status: 'CREATED',
        statusCode: 'STSCI01',
        failureReason: null,
        cardOwner: owner,
        formFactor: 'VIRTUAL',
        cardHolder: { userId: owner, nameless: false, embossedName: 'IVAN PETROV' },
        options: null,
        delivery: null,
        createdAt: '2026-11-23T12:00:00.000',
        updatedAt: '2026-11-23T12:00:00.000',
        history: [
          {
            status: 'CREATED',
            statusCode: 'STSCI01',
            at: '2026-11-23T12:00:00.000',
            source: 'api',
          },
        ],
      });
    });

    it('a plastic card to a known branch', async () => {
      const res = await post(selfPlastic(owner, { toBranch: { id: '0001' } }));
      expect(res.body).toMatchObject({ status: 'CREATED' });
    });

    it('a plastic card by courier with SMS to another user', async () => {
      const res = await post(
        selfPlastic(
          owner,
          { courier: courier({ recipient: { userId: other } }) },
          { options: { smsNotifications: { userId: other } } },
        ),
      );
      expect(res.body).toMatchObject({ status: 'CREATED' });
    });

    it('a nameless card', async () => {
      const res = await post({
        request: { cardOwner: owner, formFactor: 'VIRTUAL', cardHolder: { nameless: true } },
      });
      expect(res.body).toMatchObject({ status: 'CREATED' });
      const record = await request(t.url).get(`${API}/${res.body.requestId}`);
      expect(record.body.cardHolder).toEqual({ nameless: true });
    });

    it('a card for a third party: the holder is created in the user service and listed as holder', async () => {
      const res = await post({
        request: {
          cardOwner: owner,
          formFactor: 'VIRTUAL',
          cardHolder: { nameless: false, user: aUser() },
        },
      });
      expect(res.body).toMatchObject({ status: 'CREATED', failureReason: null });
      const record = await request(t.url).get(`${API}/${res.body.requestId}`);
      const holderId = record.body.cardHolder.userId as string;
      expect(holderId).toMatch(/^X[A-Z0-9]{5}$/);
      const user = await request(t.url)
        .get(`/user-api/api/v1/users/${holderId}`)
        .set('X-secret', SECRET);
      expect(user.status).toBe(200);
      const listed = await request(t.url).get(`${API}/client/${holderId}`);
      expect(listed.body.map((r: { requestId: string }) => r.requestId)).toEqual([
        res.body.requestId,
      ]);
    });
  });

  describe('POST fails as a business outcome (201 FAILED, stored and readable)', () => {
    it.each([
      [
        'card owner',
        (u: string) =>
          selfVirtual('XNONE1', { cardHolder: { userId: u, nameless: false, embossedName: 'A' } }),
        'XNONE1',
      ],
      [
        'card holder',
        (u: string) =>
          selfVirtual(u, { cardHolder: { userId: 'XNONE2', nameless: false, embossedName: 'A' } }),
        'XNONE2',
      ],
      [
        'SMS user',
        (u: string) => selfVirtual(u, { options: { smsNotifications: { userId: 'XNONE3' } } }),
        'XNONE3',
      ],
      [
        'courier recipient',
        (u: string) => selfPlastic(u, { courier: courier({ recipient: { userId: 'XNONE4' } }) }),
        'XNONE4',
      ],
    ])('when the %s does not exist', async (_who, build, missing) => {
      const res = await post(build(owner));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        requestId: expect.stringMatching(/^RCARDB/),
        status: 'FAILED',
        statusCode: 'STSCI05',
        failureReason: `User ${missing} does not exist`,
      });
      const record = await request(t.url).get(`${API}/${res.body.requestId}`);
      expect(record.body).toMatchObject({
        status: 'FAILED',
        failureReason: `User ${missing} does not exist`,
      });
      expect(record.body.history).toEqual([
        expect.objectContaining({ status: 'FAILED', statusCode: 'STSCI05', source: 'api' }),
      ]);
    });

    it('when the branch does not exist', async () => {
      const res = await post(selfPlastic(owner, { toBranch: { id: '9999' } }));
      expect(res.body).toMatchObject({
        status: 'FAILED',
        statusCode: 'STSCI05',
        failureReason: 'Branch 9999 does not exist',
      });
    });

    it('when the third-party holder has a passport already registered', async () => {
      const holder = aUser();
      await request(t.url)
        .post('/user-api/api/v1/users')
        .set('X-secret', SECRET)
        .send(holder)
        .expect(201);
      const res = await post({
        request: {
          cardOwner: owner,
          formFactor: 'VIRTUAL',
          cardHolder: { nameless: false, user: holder },
        },
      });
      expect(res.body.status).toBe('FAILED');
      expect(res.body.failureReason).toBe(
        'The card holder could not be created in the user service: it conflicts with an existing user',
      );
      // The answer names no passport (GET reads back the reason stored, and the request the
      // caller sent, which holds its own holder's data).
      const { number } = holder.passportData as { number: string };
      expect(JSON.stringify(res.body)).not.toContain(number);
      const read = await request(t.url).get(`${API}/${res.body.requestId as string}`);
      expect(read.body.failureReason).toBe(res.body.failureReason);
    });
  });

  describe('validation (400, every field by full path, nothing stored)', () => {
    it('names every violated field at once, including nested ones', async () => {
      const before = await countRequests();
      const user = {
        ...aUser({ contactInfo: { phone: '89161234567', email: 'not-an-email' } }),
        extra: 1,
      };
      const res = await post({
        request: {
          cardOwner: 'Y12345',
          formFactor: 'PAPER',
          cardHolder: { nameless: false, user },
          delivery: { toBranch: { id: '12' } },
          unknown: true,
        },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        status: 400,
        error: 'Bad Request',
        message: 'Validation failed',
      });
      expect(Object.keys(res.body.errors).sort()).toEqual(
        [
          'request.cardOwner',
          'request.formFactor',
          'request.cardHolder.user.contactInfo.phone',
          'request.cardHolder.user.contactInfo.email',
          'request.cardHolder.user.extra',
          'request.delivery.toBranch.id',
          'request.unknown',
        ].sort(),
      );
      expect(await countRequests()).toBe(before);
    });

    it('reports field and cross-field rules together', async () => {
      const res = await post(
        selfVirtual(owner, { cardOwner: 'bad', delivery: { toBranch: { id: '0001' } } }),
      );
      expect(Object.keys(res.body.errors).sort()).toEqual([
        'request.cardOwner',
        'request.delivery',
      ]);
    });

    it.each([
      ['embossedName', 150, 201],
      ['embossedName', 151, 400],
    ])('%s of %i characters gives %i', async (_field, length, status) => {
      const res = await post(
        selfVirtual(owner, {
          cardHolder: { userId: owner, nameless: false, embossedName: 'A'.repeat(length) },
        }),
      );
      expect(res.status).toBe(status);
      if (status === 400)
        expect(Object.keys(res.body.errors)).toEqual(['request.cardHolder.embossedName']);
    });

    it.each([
      ['firstName', 150, 201],
      ['firstName', 151, 400],
      ['lastName', 151, 400],
      ['middleName', 151, 400],
    ])('third-party user %s of %i characters gives %i', async (field, length, status) => {
      const res = await post({
        request: {
          cardOwner: owner,
          formFactor: 'VIRTUAL',
          cardHolder: { nameless: false, user: aUser({ [field]: 'A'.repeat(length) }) },
        },
      });
      expect(res.status).toBe(status);
      if (status === 400)
        expect(Object.keys(res.body.errors)).toEqual([`request.cardHolder.user.${field}`]);
    });

    it.each([
      ['tomorrow', '24-11-2026', 201],
      ['today + 7', '30-11-2026', 201],
      ['today', '23-11-2026', 400],
      ['today + 8', '01-12-2026', 400],
    ])('courier date %s (%s) gives %i', async (_name, date, status) => {
      const res = await post(selfPlastic(owner, { courier: courier({ date }) }));
      expect(res.status).toBe(status);
      if (status === 400)
        expect(res.body.errors).toEqual({ 'request.delivery.courier.date': expect.any(String) });
    });

    it.each([
      ['09:00', '13:00', 201],
      ['17:00', '21:00', 201],
      ['8:00', '12:00', 400],
      ['17:30', '21:30', 400],
      ['10:00', '13:00', 400],
      ['10:00', '15:00', 400],
      ['24:00', '04:00', 400],
    ])('slot %s-%s gives %i', async (from, to, status) => {
      const res = await post(selfPlastic(owner, { courier: courier({ timeSlot: { from, to } }) }));
      expect(res.status).toBe(status);
    });

    it.each([
      ['a JSON array', []],
      ['a string', 'card'],
      ['null request', { request: null }],
      ['empty object', {}],
    ])('refuses %s as the body', async (_name, body) => {
      const res = await request(t.url)
        .post(API)
        .set('content-type', 'application/json')
        .send(JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body.errors).toBeDefined();
    });

    it('refuses nameless with a holder id and a delivery for VIRTUAL', async () => {
      const res = await post({
        request: {
          cardOwner: owner,
          formFactor: 'VIRTUAL',
          cardHolder: { nameless: true, userId: owner },
          delivery: { toBranch: { id: '0001' } },
        },
      });
      expect(Object.keys(res.body.errors).sort()).toEqual([
        'request.cardHolder.userId',
        'request.delivery',
      ]);
    });

    it('refuses a string where a boolean is expected', async () => {
      const res = await post(
        selfVirtual(owner, { cardHolder: { userId: owner, nameless: 'false', embossedName: 'A' } }),
      );
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toContain('request.cardHolder.nameless');
    });

    // A third party's passport follows the date rules of registration; names the shared name rule.
    const HOLDER = 'request.cardHolder.user';
    it.each([
      [
        'a birth date in the future',
        { birthDate: '24-11-2026' },
        [`${HOLDER}.passportData.birthDate`, `${HOLDER}.passportData.issueDate`],
      ],
      [
        'a birth date before 01-01-1900',
        { birthDate: '31-12-1899' },
        [`${HOLDER}.passportData.birthDate`],
      ],
      [
        'an issue date in the future',
        { issueDate: '24-11-2026' },
        [`${HOLDER}.passportData.issueDate`],
      ],
      [
        'an issue date before birth',
        { birthDate: '15-03-1990', issueDate: '14-03-1990' },
        [`${HOLDER}.passportData.issueDate`],
      ],
    ])('refuses a third-party holder with %s, storing nothing', async (_name, dates, paths) => {
      const before = await countRequests();
      const holder = aUser();
      Object.assign(holder.passportData, dates);
      const res = await post(selfVirtual(owner, { cardHolder: { nameless: false, user: holder } }));
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual([...paths].sort());
      expect(await countRequests()).toBe(before);
    });

    it.each([
      [
        'cardHolder.embossedName',
        { cardHolder: { userId: 'X00001', nameless: false, embossedName: '   ' } },
      ],
      [
        'cardHolder.embossedName',
        { cardHolder: { userId: 'X00001', nameless: false, embossedName: 'IVAN\tP' } },
      ],
      [
        'cardHolder.user.firstName',
        { cardHolder: { nameless: false, user: aUser({ firstName: ' \u3000' }) } },
      ],
      [
        'cardHolder.user.lastName',
        { cardHolder: { nameless: false, user: aUser({ lastName: 'Ivanov\u001b[2J' }) } },
      ],
    ])('refuses a blank or control-character name at %s', async (path, overrides) => {
      const res = await post(selfVirtual(owner, overrides));
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([`request.${path}`]);
    });

    it.each(['firstName', 'lastName'])(
      'refuses a courier recipient whose %s is blank or holds a control character',
      async (field) => {
        for (const value of ['  ', 'Oleg\u0007']) {
          const delivery = {
            courier: courier({
              recipient: {
                user: {
                  firstName: 'Oleg',
                  lastName: 'Sidorov',
                  contactInfo: { phone: '79031112233' },
                  [field]: value,
                },
              },
            }),
          };
          const res = await post(selfPlastic(owner, delivery));
          expect(res.status).toBe(400);
          expect(Object.keys(res.body.errors)).toEqual([
            `request.delivery.courier.recipient.user.${field}`,
          ]);
        }
      },
    );
  });

  describe('GET', () => {
    it('404 for an unknown id, 400 for a malformed one', async () => {
      const unknown = await request(t.url).get(`${API}/RCARDB01012020000000`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toContain('RCARDB01012020000000');
      const malformed = await request(t.url).get(`${API}/nope`);
      expect(malformed.status).toBe(400);
      expect(Object.keys(malformed.body.errors)).toEqual(['id']);
    });

    it('lists by owner or holder, newest first, with limit and offset', async () => {
      const lister = await createUser(t.url);
      const holder = await createUser(t.url);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        clock.advance(1000);
        ids.push((await post(selfVirtual(lister))).body.requestId);
      }
      clock.advance(1000);
      ids.push(
        (
          await post(
            selfVirtual(lister, {
              cardHolder: { userId: holder, nameless: false, embossedName: 'A' },
            }),
          )
        ).body.requestId,
      );
      const all = await request(t.url).get(`${API}/client/${lister}`);
      expect(all.body.map((r: { requestId: string }) => r.requestId)).toEqual([...ids].reverse());
      const page = await request(t.url).get(`${API}/client/${lister}?limit=2&offset=1`);
      expect(page.body.map((r: { requestId: string }) => r.requestId)).toEqual([ids[2], ids[1]]);
      const asHolder = await request(t.url).get(`${API}/client/${holder}`);
      expect(asHolder.body.map((r: { requestId: string }) => r.requestId)).toEqual([ids[3]]);
      expect(asHolder.body[0].history).toHaveLength(1);
    });

    it.each([
      'limit=0',
      'limit=1001',
      'limit=abc',
      'offset=-1',
      'limit=0x10',
      'limit=+5',
      'limit=1e3',
      'limit=5.0',
      'limit=%205',
      'limit=05',
      'limit=',
      'limit=1&limit=2',
      'offset=1e20',
      'offset=99999999999999999999',
      'offset=9223372036854775808',
      'offset=1000001',
      'offset=0x10',
    ])('refuses %s with a 400 naming the range', async (query) => {
      const res = await request(t.url).get(`${API}/client/${owner}?${query}`);
      expect(res.status).toBe(400);
      const [name] = query.split('=');
      expect(res.body.errors).toEqual({
        [name]: expect.stringMatching(/^must be an integer from \d+ to \d+ in decimal digits$/),
      });
    });

    it.each(['limit=1&offset=1000000', 'limit=1000&offset=0', 'offset=7'])(
      'takes %s at the edges of the range',
      async (query) => {
        const res = await request(t.url).get(`${API}/client/${owner}?${query}`);
        expect(res.status).toBe(200);
        expect(Array.isArray(res.body)).toBe(true);
      },
    );

    it('refuses a malformed client id', async () => {
      expect((await request(t.url).get(`${API}/client/abc`)).status).toBe(400);
    });
  });

  describe('PATCH status', () => {
    const patch = (id: string, status: unknown) =>
      request(t.url).patch(`${API}/${id}/status`).send({ status });

    it.each([
      ['VIRTUAL', 'READY', 200],
      ['VIRTUAL', 'PLASTIC_READY', 409],
      ['PLASTIC', 'PLASTIC_READY', 200],
      ['PLASTIC', 'READY', 409],
      ['VIRTUAL', 'PROCESSING', 200],
      ['PLASTIC', 'FAILED', 200],
      ['VIRTUAL', 'CREATED', 200],
    ])('%s to %s gives %i', async (formFactor, status, code) => {
      const body =
        formFactor === 'VIRTUAL'
          ? selfVirtual(owner)
          : selfPlastic(owner, { toBranch: { id: '0002' } });
      const { requestId } = (await post(body)).body;
      const res = await patch(requestId, status);
      expect(res.status).toBe(code);
      const record = (await request(t.url).get(`${API}/${requestId}`)).body;
      if (code === 200) {
        expect(res.body).toMatchObject({ requestId, status });
        expect(record.status).toBe(status);
      } else {
        expect(res.body.message).toMatch(/not allowed/);
        expect(record.status).toBe('CREATED');
      }
    });

    it('moves any status to any status and records each change', async () => {
      const { requestId } = (await post(selfVirtual(owner))).body;
      for (const status of ['PROCESSING', 'FAILED', 'CREATED', 'READY']) {
        expect((await patch(requestId, status)).status).toBe(200);
      }
      const record = (await request(t.url).get(`${API}/${requestId}`)).body;
      expect(
        record.history.map((h: { status: string; source: string }) => `${h.status}/${h.source}`),
      ).toEqual(['CREATED/api', 'PROCESSING/api', 'FAILED/api', 'CREATED/api', 'READY/api']);
      expect(record.failureReason).toBeNull();
    });

    it('gives FAILED a reason and clears it when leaving FAILED', async () => {
      const { requestId } = (await post(selfVirtual(owner))).body;
      expect((await patch(requestId, 'FAILED')).body).toMatchObject({
        statusCode: 'STSCI05',
        failureReason: expect.any(String),
      });
      expect((await patch(requestId, 'PROCESSING')).body).toMatchObject({
        statusCode: 'STSCI02',
        failureReason: null,
      });
    });

    it('400 for an invalid status, 404 for an unknown id', async () => {
      const { requestId } = (await post(selfVirtual(owner))).body;
      const bad = await patch(requestId, 'DONE');
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.errors)).toEqual(['status']);
      expect((await patch('RCARDB01012020000000', 'READY')).status).toBe(404);
    });
  });

  describe('Idempotency-Key', () => {
    it('20 parallel identical requests create one request and replay its response', async () => {
      const user = await createUser(t.url);
      const body = selfVirtual(user);
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          request(t.url).post(API).set('Idempotency-Key', 'key-parallel-1').send(body),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
      const ids = new Set(responses.map((r) => r.body.requestId));
      expect(ids.size).toBe(1);
      expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
      const listed = await request(t.url).get(`${API}/client/${user}`);
      expect(listed.body).toHaveLength(1);
    });

    it('the same key with another body is a conflict', async () => {
      await post(selfVirtual(owner)).set('Idempotency-Key', 'key-2').expect(201);
      const res = await request(t.url)
        .post(API)
        .set('Idempotency-Key', 'key-2')
        .send(selfVirtual(other));
      expect(res.status).toBe(409);
    });

    it('refuses a malformed key', async () => {
      const res = await request(t.url)
        .post(API)
        .set('Idempotency-Key', 'a b')
        .send(selfVirtual(owner));
      expect(res.status).toBe(400);
    });
  });

  describe('request ids', () => {
    it('take the business date in Moscow (after 21:00 UTC it is the next day)', async () => {
      clock.set('2026-11-23T21:30:00.000Z'); // 00:30 on 24-11 in Moscow
      try {
        const res = await post(selfVirtual(owner));
        expect(res.body.requestId).toMatch(/^RCARDB24112026\d{6}$/);
      } finally {
        clock.set('2026-11-23T09:00:00.000Z');
      }
    });

    it('are unique under parallel creation', async () => {
      const responses = await Promise.all(
        Array.from({ length: 30 }, () => post(selfVirtual(owner))),
      );
      const ids = responses.map((r) => r.body.requestId);
      expect(new Set(ids).size).toBe(30);
    });

    it('answer 503 instead of a duplicate when the day has used its million', async () => {
      clock.set('2026-11-25T09:00:00.000Z');
      try {
        await post(selfVirtual(owner)).expect(201); // creates the day's sequence
        await t.app
          .get(DataSource)
          .query(`SELECT setval('card_issue_request_seq_25112026', 999999)`);
        const before = await countRequests();
        const res = await post(selfVirtual(owner));
        expect(res.status).toBe(503);
        expect(res.body.message).toContain('25112026');
        expect(await countRequests()).toBe(before);
      } finally {
        clock.set('2026-11-23T09:00:00.000Z');
      }
    });
  });

  describe('operation service', () => {
    it('receives an operation for each stored request and every status change, in order', async () => {
      const user = await createUser(t.url);
      const { requestId } = (await post(selfVirtual(user))).body;
      await request(t.url)
        .patch(`${API}/${requestId}/status`)
        .send({ status: 'PROCESSING' })
        .expect(200);
      await request(t.url)
        .patch(`${API}/${requestId}/status`)
        .send({ status: 'READY' })
        .expect(200);
      await t.app.get(OutboxService).drain();
      await eventually(async () => {
        const ops = await request(t.url)
          .get(`/operation-api/api/v1/operations/by-owner/${user}`)
          .set('X-secret', SECRET);
        return ops.body.length === 1 && ops.body[0].status === 'READY';
      });
      const ops = await request(t.url)
        .get(`/operation-api/api/v1/operations/by-owner/${user}`)
        .set('X-secret', SECRET);
      expect(ops.body[0]).toMatchObject({
        requestId,
        cardOwner: user,
        holderUserId: user,
        formFactor: 'VIRTUAL',
      });
    });
  });
});
