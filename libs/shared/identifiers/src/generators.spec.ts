import { ACCOUNT_NUMBER_PATTERN, REQUEST_ID_PATTERN, USER_ID_PATTERN } from './formats';
import { formatRequestId, generateAccountNumber, generateUserId } from './generators';

describe('generateUserId', () => {
  it('produces X + 5 of A-Z0-9', () => {
    for (let i = 0; i < 1000; i++) {
      expect(generateUserId()).toMatch(USER_ID_PATTERN);
    }
  });

  it('uses the whole alphabet at both ends', () => {
    expect(generateUserId(() => 0)).toBe('XAAAAA');
    expect(generateUserId((max) => max - 1)).toBe('X99999');
  });
});

describe('generateAccountNumber', () => {
  it.each([
    ['RUR', '810'],
    ['USD', '840'],
    ['EUR', '978'],
  ] as const)('%s gives 40702%s + 12 digits', (currency, code) => {
    const number = generateAccountNumber(currency);
    expect(number).toHaveLength(20);
    expect(number).toMatch(ACCOUNT_NUMBER_PATTERN);
    expect(number.slice(0, 8)).toBe(`40702${code}`);
  });

  it('pads both random halves with zeros', () => {
    expect(generateAccountNumber('RUR', () => 7)).toBe('40702810000007000007');
    expect(generateAccountNumber('EUR', () => 999_999)).toBe('40702978999999999999');
  });

  it('stays unique over 10,000 numbers in practice', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) seen.add(generateAccountNumber('USD'));
    // 10^12 space: a collision among 10^4 has probability ~5e-5; the database constraint covers the rest.
    expect(seen.size).toBe(10_000);
  });
});

describe('formatRequestId', () => {
  it('is RCARDB + date + 6 digits, 20 characters', () => {
    const id = formatRequestId('23112026', 42);
    expect(id).toBe('RCARDB23112026000042');
    expect(id).toHaveLength(20);
    expect(id).toMatch(REQUEST_ID_PATTERN);
  });

  it('accepts the last number of a day and refuses the next', () => {
    expect(formatRequestId('01012026', 999_999)).toBe('RCARDB01012026999999');
    expect(() => formatRequestId('01012026', 1_000_000)).toThrow(RangeError);
    expect(() => formatRequestId('01012026', -1)).toThrow(RangeError);
  });

  it('refuses a malformed date', () => {
    expect(() => formatRequestId('2026-11-23', 1)).toThrow(RangeError);
  });
});

describe('patterns', () => {
  it.each(['XABCDE', 'X12345', 'XA1B2C'])('user id %s is valid', (id) =>
    expect(id).toMatch(USER_ID_PATTERN),
  );
  it.each(['YABCDE', 'Xabcde', 'XABCD', 'XABCDEF', 'X-BCDE'])('user id %s is invalid', (id) =>
    expect(id).not.toMatch(USER_ID_PATTERN),
  );
});
