import { randomBytes } from 'node:crypto';
import { estimatedSecretBits, MIN_SECRET_BITS, secretStrengthProblems } from './secret-strength';

describe('estimatedSecretBits', () => {
  it('counts log2 of the character pool per character for random values', () => {
    // 32 random hexadecimal digits: lowercase and digits, a pool of 36.
    expect(estimatedSecretBits('3f9a0c7e5b21d4f68a9c0e3b7d15f2a4')).toBe(165);
    // Base64 of 32 random bytes (openssl rand -base64 32): 44 characters, every class.
    expect(estimatedSecretBits(randomBytes(32).toString('base64'))).toBeGreaterThan(250);
  });

  it('discounts repeats and known words', () => {
    expect(estimatedSecretBits('a'.repeat(32))).toBeLessThan(10);
    expect(estimatedSecretBits('dev-secretdev-secretdev-secret12')).toBeLessThan(MIN_SECRET_BITS);
    expect(estimatedSecretBits('changeme'.repeat(4))).toBeLessThan(20);
    expect(estimatedSecretBits('PasswordPasswordPasswordPassword')).toBeLessThan(30);
  });
});

describe('secretStrengthProblems', () => {
  it.each([
    ['32 random hexadecimal digits', '3f9a0c7e5b21d4f68a9c0e3b7d15f2a4'],
    ['openssl rand -base64 32', randomBytes(32).toString('base64')],
    ['openssl rand -base64 24 (32 characters)', randomBytes(24).toString('base64')],
    ['a long passphrase of lowercase words', 'a-production-secret-of-at-least-32-characters'],
  ])('takes %s', (_name, value) => {
    expect(secretStrengthProblems('X_SECRET', value)).toEqual([]);
  });

  it.each([
    ['a x 32', 'a'.repeat(32), ['short pattern repeated', 'at least 128 bits']],
    [
      'dev-secret repeated with two digits',
      'dev-secretdev-secretdev-secret12',
      ['default or common words', 'at least 128 bits'],
    ],
    [
      'changeme x 4',
      'changeme'.repeat(4),
      ['short pattern repeated', 'default or common words', 'at least 128 bits'],
    ],
    ['secret x 6', 'secret'.repeat(6), ['short pattern repeated', 'default or common words']],
    ['password x 4', 'password'.repeat(4), ['short pattern repeated', 'default or common words']],
    ['a short random pattern repeated', 'x7Q!'.repeat(10), ['short pattern repeated']],
  ])('refuses %s, naming each rule and never the value', (_name, value, rules) => {
    const problems = secretStrengthProblems('X_SECRET', value);
    for (const rule of rules) expect(problems.join('\n')).toContain(rule);
    for (const problem of problems) expect(problem).toMatch(/^X_SECRET must /);
    const text = problems.join('\n');
    expect(text).not.toContain(value);
    // Nor a piece of it longer than the rule's own words.
    expect(text).not.toContain(value.slice(0, 12));
  });

  it('judges a very long value on its first 1024 characters', () => {
    expect(secretStrengthProblems('X_SECRET', randomBytes(50_000).toString('base64'))).toEqual([]);
    expect(secretStrengthProblems('X_SECRET', 'ab'.repeat(50_000))).toHaveLength(2);
  });
});
