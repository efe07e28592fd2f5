import { ACCOUNT_NUMBER_PATTERN, CURRENCIES, CURRENCY_CODES } from '@bank/shared/identifiers';
import { AccountNumberGenerator } from './account-number.generator';

describe('AccountNumberGenerator', () => {
  const generator = new AccountNumberGenerator();

  it.each(CURRENCIES)('draws 40702 + the %s code + 12 digits, 20 characters', (currency) => {
    const number = generator.next(currency);
    expect(number).toMatch(ACCOUNT_NUMBER_PATTERN);
    expect(number).toHaveLength(20);
    expect(number.slice(5, 8)).toBe(CURRENCY_CODES[currency]);
  });

  it('draws 10,000 distinct numbers in a row', () => {
    const numbers = new Set<string>();
    for (let i = 0; i < 10_000; i++) numbers.add(generator.next('RUR'));
    expect(numbers.size).toBe(10_000);
    for (const number of numbers) expect(number).toMatch(/^40702810\d{12}$/);
  });

  it('spreads the random part over all digits (no fixed positions)', () => {
    const seen = Array.from({ length: 12 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i++) {
      const random = generator.next('USD').slice(8);
      [...random].forEach((digit, position) => seen[position].add(digit));
    }
    for (const digits of seen) expect(digits.size).toBe(10);
  });
});
