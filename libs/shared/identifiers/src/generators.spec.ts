import { ACCOUNT_NUMBER_PATTERN, USER_ID_PATTERN } from './formats';
import { generateAccountNumber, generateUserId } from './generators';

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
