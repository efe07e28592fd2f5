import { LocalDate, ageOn, compareLocalDates, plusCalendar } from '@bank/shared/calendar';

/** Registration spec 2.4, as pure functions of calendar dates (the caller supplies "today"). */

const MINIMUM_AGE = 18;
/** Ages at which a passport has to be replaced, highest first. */
const PASSPORT_REPLACEMENT_AGES = [45, 20] as const;
/** Time allowed for replacing the passport after such a birthday: one calendar month. */
const REPLACEMENT_GRACE = { months: 1 } as const;

export type PassportRuleViolation =
  | { kind: 'UNDERAGE'; age: number; adultOn: LocalDate }
  | {
      kind: 'PASSPORT_OUTDATED';
      replacementAge: (typeof PASSPORT_REPLACEMENT_AGES)[number];
      birthday: LocalDate;
      /** Last day on which the old passport was still accepted. */
      lastGraceDay: LocalDate;
    };

export interface PassportDates {
  birthDate: LocalDate;
  issueDate: LocalDate;
}

/**
 * The first rule of 2.4 the client breaks on `today`, or null.
 *
 * - Under 18 (the 18th birthday itself counts as 18): refused.
 * - Age 20-44: a passport issued before the 20th birthday is accepted up to and including
 *   the 20th birthday plus one calendar month, refused after.
 * - Age 45 and over: the same with the 45th birthday. Only the highest replacement age
 *   reached applies, exactly as the spec's table reads.
 *
 * A birthday on 29-02 falls on 28-02 in common years (see ageOn); the grace month is added
 * to that birthday.
 */
export function checkAgeAndPassport(
  { birthDate, issueDate }: PassportDates,
  today: LocalDate,
): PassportRuleViolation | null {
  const age = ageOn(birthDate, today);
  if (age < MINIMUM_AGE) {
    return { kind: 'UNDERAGE', age, adultOn: plusCalendar(birthDate, { years: MINIMUM_AGE }) };
  }
  const replacementAge = PASSPORT_REPLACEMENT_AGES.find((a) => age >= a);
  if (replacementAge === undefined) return null;
  const birthday = plusCalendar(birthDate, { years: replacementAge });
  const lastGraceDay = plusCalendar(birthday, REPLACEMENT_GRACE);
  const issuedBefore = compareLocalDates(issueDate, birthday) < 0;
  const graceOver = compareLocalDates(today, lastGraceDay) > 0;
  if (issuedBefore && graceOver) {
    return { kind: 'PASSPORT_OUTDATED', replacementAge, birthday, lastGraceDay };
  }
  return null;
}
