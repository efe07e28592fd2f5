import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startClientRegistration } from '../../test/client-registration.harness';
import { NOW, passportData, registration } from '../../test/client-request.fixture';
import { FixedClock } from '@bank/shared/calendar';

/**
 * Spec 2.4 over HTTP with a fixed clock, on both sides of every edge, at registration and
 * at passport update. The business date is the date in Europe/Moscow (UTC+3).
 */

/** Noon in Moscow on a dd-MM-yyyy business date. */
function moscowNoon(ddMmYyyy: string): string {
  const [day, month, year] = ddMmYyyy.split('-');
  return `${year}-${month}-${day}T09:00:00.000Z`;
}

const UNDERAGE_TITLE = 'Отказ в регистрации';
const OUTDATED_TITLE = 'Ошибка проверки паспорта';

describe('age and passport rules (e2e)', () => {
  let t: RunningTestService;
  const clock = new FixedClock(NOW);

  beforeAll(async () => {
    t = await startClientRegistration({
      label: 'client_registration_age_rules',
      clock,
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  async function register(on: string, birthDate: string, issueDate: string) {
    clock.set(moscowNoon(on));
    return request(t.url)
      .post('/api/clients')
      .send(registration({ passportData: passportData({ birthDate, issueDate }) }));
  }

  async function updatePassport(id: string, on: string, birthDate: string, issueDate: string) {
    clock.set(moscowNoon(on));
    return request(t.url)
      .put(`/api/clients/${id}/passport`)
      .send({ passportData: passportData({ birthDate, issueDate }) });
  }

  describe('registration', () => {
    describe('minimum age 18', () => {
      it('accepts the client on the 18th birthday', async () => {
        const res = await register('23-11-2026', '23-11-2008', '01-12-2022');
        expect(res.status).toBe(201);
      });

      it('refuses the client the day before with 403', async () => {
        const res = await register('22-11-2026', '23-11-2008', '01-12-2022');
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ status: 403, error: UNDERAGE_TITLE });
        expect(res.body.message).toContain('18 лет');
        expect(res.body.details).toBeUndefined();
      });

      it('uses the business date: 00:30 in Moscow is already the 18th birthday', async () => {
        clock.set('2026-11-22T21:30:00.000Z');
        const res = await request(t.url)
          .post('/api/clients')
          .send(
            registration({
              passportData: passportData({ birthDate: '23-11-2008', issueDate: '01-12-2022' }),
            }),
          );
        expect(res.status).toBe(201);
        expect(res.body.registrationDate).toBe('23-11-2026 00:30:00');
      });

      it('and 23:30 in Moscow the evening before is not', async () => {
        clock.set('2026-11-22T20:30:00.000Z');
        const res = await request(t.url)
          .post('/api/clients')
          .send(
            registration({
              passportData: passportData({ birthDate: '23-11-2008', issueDate: '01-12-2022' }),
            }),
          );
        expect(res.status).toBe(403);
      });

      it('born 29-02-2008: accepted on 28-02-2026, refused on 27-02-2026', async () => {
        expect((await register('27-02-2026', '29-02-2008', '01-03-2022')).status).toBe(403);
        expect((await register('28-02-2026', '29-02-2008', '01-03-2022')).status).toBe(201);
      });
    });

    describe('passport issued before the 20th birthday (20th birthday 15-03-2026)', () => {
      it('accepts it on the last grace day 15-04-2026', async () => {
        expect((await register('15-04-2026', '15-03-2006', '01-04-2020')).status).toBe(201);
      });

      it('refuses it on 16-04-2026 with 400 asking for an updated passport', async () => {
        const res = await register('16-04-2026', '15-03-2006', '01-04-2020');
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ status: 400, error: OUTDATED_TITLE });
        expect(res.body.message).toMatch(/Требуется обновлённый паспорт/);
        expect(res.body.message).toContain('15-04-2026');
        expect(res.body.details).toBeUndefined();
      });

      it('born 29-02-2004: accepted on 29-03-2024, refused on 30-03-2024', async () => {
        expect((await register('29-03-2024', '29-02-2004', '01-03-2018')).status).toBe(201);
        expect((await register('30-03-2024', '29-02-2004', '01-03-2018')).status).toBe(400);
      });
    });

    describe('passport issued before the 45th birthday (45th birthday 15-03-2026)', () => {
      it('accepts it on the last grace day 15-04-2026', async () => {
        expect((await register('15-04-2026', '15-03-1981', '20-03-2001')).status).toBe(201);
      });

      it('refuses it on 16-04-2026', async () => {
        const res = await register('16-04-2026', '15-03-1981', '20-03-2001');
        expect(res.status).toBe(400);
        expect(res.body.error).toBe(OUTDATED_TITLE);
        expect(res.body.message).toContain('45 лет');
      });

      it('born 29-02-1980: 45th birthday 28-02-2025, accepted on 28-03-2025, refused on 29-03-2025', async () => {
        expect((await register('28-03-2025', '29-02-1980', '01-03-2000')).status).toBe(201);
        expect((await register('29-03-2025', '29-02-1980', '01-03-2000')).status).toBe(400);
      });
    });
  });

  describe('passport update', () => {
    let clientId: string;

    beforeAll(async () => {
      // 46 years old on 23-11-2026, passport issued on the 45th birthday: valid.
      const res = await register('23-11-2026', '15-03-1980', '15-03-2025');
      expect(res.status).toBe(201);
      clientId = res.body.id;
    });

    it('refuses a passport that is stale for the client (issued before the 45th birthday)', async () => {
      const res = await updatePassport(clientId, '23-11-2026', '15-03-1980', '14-03-2025');
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(OUTDATED_TITLE);
      const stored = await request(t.url).get(`/api/clients/${clientId}`);
      expect(stored.body.passportData.issueDate).toBe('15-03-2025');
    });

    it('accepts an old passport inside the grace month of the 20th birthday', async () => {
      const created = await register('10-03-2026', '10-03-2006', '01-04-2016');
      expect(created.status).toBe(201);
      const res = await updatePassport(created.body.id, '10-04-2026', '10-03-2006', '02-04-2016');
      expect(res.status).toBe(200);
      expect(res.body.actualizationDate).toBe('10-04-2026 12:00:00');
      expect(res.body.registrationDate).toBe('10-03-2026 12:00:00');
    });

    it('refuses the same passport once the grace month is over', async () => {
      const created = await register('10-03-2026', '10-03-2006', '01-04-2016');
      const res = await updatePassport(created.body.id, '11-04-2026', '10-03-2006', '01-04-2016');
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('20 лет');
    });

    it('refuses with 403 new data that make the client younger than 18', async () => {
      const res = await updatePassport(clientId, '23-11-2026', '24-11-2008', '01-12-2022');
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Отказ в обновлении паспортных данных');
    });

    it('refuses an issue date in the future and before the birth date as validation errors', async () => {
      const future = await updatePassport(clientId, '23-11-2026', '15-03-1980', '24-11-2026');
      expect(future.status).toBe(400);
      expect(future.body.details).toEqual([
        'passportData.issueDate: не может быть позже текущей даты',
      ]);
      const beforeBirth = await updatePassport(clientId, '23-11-2026', '15-03-1980', '14-03-1980');
      expect(beforeBirth.body.details).toEqual([
        'passportData.issueDate: не может быть раньше даты рождения',
      ]);
    });
  });
});
