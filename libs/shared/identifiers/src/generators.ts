import { randomInt } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export type RandomInt = (maxExclusive: number) => number;

const secureRandomInt: RandomInt = (max) => randomInt(max);

/** A new user id, X + 5 random of A-Z0-9 (36^5 = 60,466,176 ids; uniqueness is the database's job). */
export function generateUserId(random: RandomInt = secureRandomInt): string {
  let id = 'X';
  for (let i = 0; i < 5; i++) {
    id += ALPHANUMERIC[random(ALPHANUMERIC.length)];
  }
  return id;
}

/** Currency -> ISO 4217 numeric code used inside account numbers (registration spec 2.2). */
export const CURRENCY_CODES = { RUR: '810', USD: '840', EUR: '978' } as const;
export type Currency = keyof typeof CURRENCY_CODES;
export const CURRENCIES = Object.keys(CURRENCY_CODES) as Currency[];

/** 40702 + currency code + 12 random digits. Uniqueness is enforced by a constraint. */
export function generateAccountNumber(
  currency: Currency,
  random: RandomInt = secureRandomInt,
): string {
  // Two 6-digit halves: randomInt's range must stay below 2^48.
  const high = random(1_000_000).toString().padStart(6, '0');
  const low = random(1_000_000).toString().padStart(6, '0');
  return `40702${CURRENCY_CODES[currency]}${high}${low}`;
}
