import request from 'supertest';
import { RunningTestService } from '@bank/shared/testing';
import { startClientRegistration } from '../../test/client-registration.harness';
import { NOW, registration, withField } from '../../test/client-request.fixture';
import { FixedClock } from '@bank/shared/calendar';

/**
 * Every row of spec 2.1 / part 8 at its limit (accepted) and just past it (400 naming the
 * field), over HTTP against a real database. NOW is 23-11-2026 in Europe/Moscow.
 */

const REQUIRED = 'обязательное поле';
const tooLong = (max: number) => `длина не должна превышать ${max} символов`;
const PHONE = 'должен состоять из 11 цифр и начинаться с 7';
const SERIES = 'должна состоять ровно из 4 цифр';
const NUMBER = 'должен состоять ровно из 6 цифр';
const PIN = 'должен состоять из 6 символов: заглавные латинские буквы, цифры или _';
const BOOLEAN = 'должно быть логическим значением true или false';
const DATE = 'должна быть реальной датой в формате dd-MM-yyyy';
const EMBOSSING = 'допустимы только заглавные латинские буквы и пробелы, хотя бы одна буква';
const EMAIL = 'должен быть корректным адресом электронной почты';

/** A valid e-mail address of exactly `length` characters. */
function emailOfLength(length: number): string {
  const domain = '@example.ru';
  return 'a'.repeat(length - domain.length) + domain;
}

const TEXT_LIMITS: [path: string, max: number][] = [
  ['lastName', 35],
  ['firstName', 35],
  ['middleName', 35],
  ['passportData.birthPlace', 120],
  ...(['actualAddress', 'registrationAddress'] as const).flatMap((address): [string, number][] => [
    [`${address}.country`, 50],
    [`${address}.region`, 50],
    [`${address}.city`, 120],
    [`${address}.street`, 120],
    [`${address}.building`, 20],
    [`${address}.apartment`, 20],
  ]),
];

const ALL_FIELDS = [
  'lastName',
  'firstName',
  'middleName',
  'gender',
  'clientType',
  'bankruptIndividual',
  'bankruptEntrepreneur',
  'embossingName',
  'contactInfo',
  'contactInfo.phone',
  'contactInfo.email',
  'passportData',
  'passportData.birthDate',
  'passportData.birthPlace',
  'passportData.issueDate',
  'passportData.series',
  'passportData.number',
  'actualAddress',
  'registrationAddress',
  ...['actualAddress', 'registrationAddress'].flatMap((a) =>
    ['country', 'region', 'city', 'street', 'building', 'apartment'].map((f) => `${a}.${f}`),
  ),
  'account',
  'managerPin',
];

describe('registration request validation (e2e)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startClientRegistration({
      label: 'client_registration_validation',
      clock: new FixedClock(NOW),
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown) =>
    request(t.url)
      .post('/api/clients')
      .send(body as object);

  async function expectAccepted(path: string, value: unknown): Promise<void> {
    const res = await post(withField(registration(), path, value));
    expect({ path, status: res.status, body: res.body }).toMatchObject({ path, status: 201 });
  }

  async function expectRefused(path: string, value: unknown, message: string): Promise<void> {
    const res = await post(withField(registration(), path, value));
    expect({ path, status: res.status }).toEqual({ path, status: 400 });
    expect(res.body).toMatchObject({
      status: 400,
      error: 'Ошибка валидации',
      message: 'Запрос содержит некорректные данные',
    });
    expect(res.body.details).toEqual([`${path}: ${message}`]);
  }

  describe.each(TEXT_LIMITS)('%s (max %i characters)', (path, max) => {
    it(`accepts ${max}`, () => expectAccepted(path, 'Я'.repeat(max)));
    it(`refuses ${max + 1}`, () => expectRefused(path, 'Я'.repeat(max + 1), tooLong(max)));
    it('refuses an empty string', () => expectRefused(path, '', 'не должно быть пустым'));
    it('refuses a number', () => expectRefused(path, 42, 'должно быть строкой'));
  });

  describe('embossingName: uppercase Latin letters and spaces, max 30', () => {
    it('accepts 30 characters with spaces', () =>
      expectAccepted('embossingName', 'IVAN PETROV ' + 'X'.repeat(18)));
    it('refuses 31 characters', () => expectRefused('embossingName', 'A'.repeat(31), tooLong(30)));
    it.each(['Ivan Petrov', 'IVAN2', 'ИВАН', 'IVAN-PETROV', 'IVAN\tPETROV', 'IVAN\nPETROV'])(
      'refuses %j',
      (value) => expectRefused('embossingName', value, EMBOSSING),
    );
  });

  describe('contactInfo.email: valid address, max 50', () => {
    it('accepts 50 characters', () => expectAccepted('contactInfo.email', emailOfLength(50)));
    it('refuses 51 characters', () =>
      expectRefused('contactInfo.email', emailOfLength(51), tooLong(50)));
    it.each(['not-an-email', 'a@b', 'ivan@@example.ru', 'ivan example@mail.ru'])(
      'refuses %j',
      (value) => expectRefused('contactInfo.email', value, EMAIL),
    );
  });

  describe('contactInfo.phone: 11 digits starting with 7', () => {
    it('accepts 79991234567', () => expectAccepted('contactInfo.phone', '79991234567'));
    it.each([
      ['starting with 8', '89161234567'],
      ['10 digits', '7916123456'],
      ['12 digits', '791612345678'],
      ['with a plus', '+79161234567'],
      ['with a letter', '7916123456a'],
    ])('refuses %s', (_, value) => expectRefused('contactInfo.phone', value, PHONE));
    it('refuses a JSON number', () =>
      expectRefused('contactInfo.phone', 79161234567, 'должно быть строкой'));
  });

  describe('passportData.series: exactly 4 digits; number: exactly 6 digits', () => {
    it('accepts 0000 / 000000 with leading zeros', async () => {
      const body = registration();
      const res = await post(
        withField(withField(body, 'passportData.series', '0000'), 'passportData.number', '000000'),
      );
      expect(res.status).toBe(201);
      expect(res.body.passportData).toMatchObject({ series: '0000', number: '000000' });
    });
    it.each(['123', '12345', '12a4', ' 1234'])('refuses series %j', (value) =>
      expectRefused('passportData.series', value, SERIES),
    );
    it.each(['12345', '1234567', '12345a'])('refuses number %j', (value) =>
      expectRefused('passportData.number', value, NUMBER),
    );
    it('refuses a numeric series', () =>
      expectRefused('passportData.series', 1234, 'должно быть строкой'));
  });

  describe('managerPin: 6 characters of A-Z, 0-9 and _', () => {
    it.each(['m_0001', 'M_00011', 'M_001', 'M-0001', 'M 0001', ''])('refuses %j', (value) =>
      expectRefused('managerPin', value, PIN),
    );
  });

  describe('enumerations', () => {
    it('accepts FEMALE', () => expectAccepted('gender', 'FEMALE'));
    it.each(['OTHER', 'male', ''])('refuses gender %j', (value) =>
      expectRefused('gender', value, 'допустимые значения: MALE, FEMALE'),
    );
    it.each(['FL', 'up'])('refuses clientType %j', (value) =>
      expectRefused('clientType', value, 'допустимые значения: UP'),
    );
    it.each(['RUB', 'usd', 'GBP'])('refuses account %j', (value) =>
      expectRefused('account', value, 'допустимые значения: RUR, USD, EUR'),
    );
  });

  describe.each(['bankruptIndividual', 'bankruptEntrepreneur'])('%s: strictly boolean', (path) => {
    it('accepts true', () => expectAccepted(path, true));
    it.each(['true', 'false', 1, 0, 'yes'])('refuses %j', (value) =>
      expectRefused(path, value, BOOLEAN),
    );
  });

  describe('dates dd-MM-yyyy', () => {
    it('accepts a birth on 29-02-2000 (a leap year)', async () => {
      const body = withField(registration(), 'passportData.birthDate', '29-02-2000');
      const res = await post(withField(body, 'passportData.issueDate', '01-03-2020'));
      expect(res.status).toBe(201);
      expect(res.body.passportData.birthDate).toBe('29-02-2000');
    });
    it.each(['31-02-2000', '29-02-2001', '31-04-2000', '00-01-2000', '15-13-2000'])(
      'refuses the unreal date %s',
      (value) => expectRefused('passportData.birthDate', value, DATE),
    );
    it.each(['2000-01-15', '1-1-2000', '15.01.2000', '15-01-00', '15-01-2000T00:00'])(
      'refuses the layout %s',
      (value) => expectRefused('passportData.issueDate', value, DATE),
    );
    it('accepts an issue date equal to today and to the birth date', async () => {
      await expectAccepted('passportData.issueDate', '23-11-2026');
      const body = withField(registration(), 'passportData.birthDate', '01-01-2007');
      const res = await post(withField(body, 'passportData.issueDate', '01-01-2007'));
      expect(res.status).toBe(201);
    });
    it('refuses a birth date in the future (and so the issue date before it)', async () => {
      const res = await post(withField(registration(), 'passportData.birthDate', '24-11-2026'));
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        'passportData.birthDate: не может быть позже текущей даты',
        'passportData.issueDate: не может быть раньше даты рождения',
      ]);
    });
    it('refuses an issue date in the future', () =>
      expectRefused('passportData.issueDate', '24-11-2026', 'не может быть позже текущей даты'));
    it('refuses an issue date before the birth date', () =>
      expectRefused('passportData.issueDate', '14-03-1990', 'не может быть раньше даты рождения'));
    it('takes 01-01-1900 as the earliest birth date (the shared rule)', async () => {
      const body = withField(registration(), 'passportData.birthDate', '01-01-1900');
      const res = await post(withField(body, 'passportData.issueDate', '01-01-2026'));
      expect(res.status).toBe(201);
      await expectRefused(
        'passportData.birthDate',
        '31-12-1899',
        'не может быть раньше 01-01-1900',
      );
    });
  });

  describe('names (the shared name rule)', () => {
    const CONTROL = 'не должно содержать управляющих или невидимых символов';
    describe.each(['lastName', 'firstName', 'middleName'])('%s', (path) => {
      it.each(['   ', '\u00a0\u3000'])('refuses the blank %j', (value) =>
        expectRefused(path, value, 'не должно быть пустым'),
      );
      it.each(['Иван\u0007', 'Ив\tан', 'Иван\n', '\u202eнавИ', 'Ива\u200bн', 'Иван\u0085'])(
        'refuses %j, which holds a control or invisible character',
        (value) => expectRefused(path, value, CONTROL),
      );
      it.each(['Анна-Мария', "O'Brien", 'Иван Петрович'])('accepts %j', (value) =>
        expectAccepted(path, value),
      );
    });
    it.each(['   ', ' '])('refuses the blank embossingName %j', (value) =>
      expectRefused('embossingName', value, EMBOSSING),
    );
  });

  describe('every field is required', () => {
    it.each(ALL_FIELDS)('refuses a body without %s', (path) =>
      expectRefused(path, undefined, REQUIRED),
    );
    it.each(['lastName', 'contactInfo', 'passportData.series', 'bankruptIndividual'])(
      'refuses %s: null',
      (path) => expectRefused(path, null, REQUIRED),
    );
    it.each([
      ['a string', 'x'],
      ['an array', [{ phone: '79161234567', email: 'a@example.ru' }]],
      ['a number', 5],
    ])('refuses contactInfo as %s', (_, value) =>
      expectRefused('contactInfo', value, 'должно быть объектом'),
    );
  });

  describe('unknown fields', () => {
    it.each(['middleNameLatin', 'contactInfo.fax', 'passportData.division', 'actualAddress.zip'])(
      'refuses %s',
      (path) => expectRefused(path, 'x', 'поле не предусмотрено'),
    );
  });

  it('lists every violated field at once', async () => {
    let body: object = registration();
    body = withField(body, 'lastName', 'Я'.repeat(36));
    body = withField(body, 'gender', 'X');
    body = withField(body, 'bankruptIndividual', 'true');
    body = withField(body, 'embossingName', 'ivan');
    body = withField(body, 'contactInfo.phone', '89161234567');
    body = withField(body, 'contactInfo.email', undefined);
    body = withField(body, 'passportData.birthDate', '10-05-2000');
    body = withField(body, 'passportData.issueDate', '09-05-2000');
    body = withField(body, 'passportData.series', '12');
    body = withField(body, 'registrationAddress.apartment', '1'.repeat(21));
    body = withField(body, 'managerPin', 'bad');
    body = withField(body, 'surprise', true);

    const res = await post(body);

    expect(res.status).toBe(400);
    expect([...res.body.details].sort()).toEqual(
      [
        `lastName: ${tooLong(35)}`,
        'gender: допустимые значения: MALE, FEMALE',
        `bankruptIndividual: ${BOOLEAN}`,
        `embossingName: ${EMBOSSING}`,
        `contactInfo.phone: ${PHONE}`,
        `contactInfo.email: ${REQUIRED}`,
        'passportData.issueDate: не может быть раньше даты рождения',
        `passportData.series: ${SERIES}`,
        `registrationAddress.apartment: ${tooLong(20)}`,
        `managerPin: ${PIN}`,
        'surprise: поле не предусмотрено',
      ].sort(),
    );
  });
});
