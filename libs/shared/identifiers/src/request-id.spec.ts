import {
  REQUEST_IDS_PER_DAY,
  REQUEST_ID_NUMBER_DIGITS,
  REQUEST_ID_PATTERN,
  REQUEST_ID_PREFIX,
  requestIdBusinessDay,
} from './request-id';

describe('request id format', () => {
  it('is RCARDB + ddMMyyyy + 6 digits, 20 characters', () => {
    expect(REQUEST_ID_PREFIX.length + 8 + REQUEST_ID_NUMBER_DIGITS).toBe(20);
    expect('RCARDB23112026000042').toMatch(REQUEST_ID_PATTERN);
    expect('RCARDB01012026999999').toMatch(REQUEST_ID_PATTERN);
  });

  it('holds 1,000,000 ids a day: the last number has 6 digits, the next would have 7', () => {
    expect(REQUEST_IDS_PER_DAY).toBe(1_000_000);
    expect(String(REQUEST_IDS_PER_DAY - 1)).toHaveLength(REQUEST_ID_NUMBER_DIGITS);
    expect('RCARDB010120261000000').not.toMatch(REQUEST_ID_PATTERN);
    expect('RCARDB0101202699999').not.toMatch(REQUEST_ID_PATTERN);
  });

  it.each([
    ['RCARDX23112026000042', 'another prefix'],
    ['RCARDB32112026000042', 'day 32'],
    ['RCARDB00112026000042', 'day 00'],
    ['RCARDB23132026000042', 'month 13'],
    ['RCARDB23002026000042', 'month 00'],
    ['rcardb23112026000042', 'lower case'],
  ])('refuses %s (%s)', (id) => {
    expect(id).not.toMatch(REQUEST_ID_PATTERN);
  });
});

describe('requestIdBusinessDay', () => {
  it('is the business day in the business time zone, not in UTC', () => {
    // 20:59:59.999 UTC is 23:59:59.999 in Moscow (UTC+3): still the 23rd.
    expect(requestIdBusinessDay(new Date('2026-11-23T20:59:59.999Z'), 'Europe/Moscow')).toBe(
      '23112026',
    );
    // One millisecond later the Moscow business day is the 24th while UTC is still the 23rd.
    expect(requestIdBusinessDay(new Date('2026-11-23T21:00:00.000Z'), 'Europe/Moscow')).toBe(
      '24112026',
    );
    expect(requestIdBusinessDay(new Date('2026-11-23T21:00:00.000Z'), 'UTC')).toBe('23112026');
  });
});
