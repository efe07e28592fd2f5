import { DateTime } from 'luxon';

/** A calendar date without time or zone. */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const DD_MM_YYYY = /^(\d{2})-(\d{2})-(\d{4})$/;

/** Parses dd-MM-yyyy; null unless it is a real calendar date (31-02-2000 is not). */
export function parseDdMmYyyy(value: string): LocalDate | null {
  const match = DD_MM_YYYY.exec(value);
  if (!match) return null;
  const [day, month, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1) return null;
  const date = DateTime.utc(year, month, day);
  if (!date.isValid || date.day !== day || date.month !== month) return null;
  return { year, month, day };
}

export function formatDdMmYyyy(date: LocalDate): string {
  return `${pad(date.day)}-${pad(date.month)}-${date.year.toString().padStart(4, '0')}`;
}

/** The calendar date of an instant in a time zone (e.g. the business date in Europe/Moscow). */
export function localDateIn(instant: Date, timeZone: string): LocalDate {
  const local = DateTime.fromJSDate(instant, { zone: timeZone });
  return { year: local.year, month: local.month, day: local.day };
}

export function compareLocalDates(a: LocalDate, b: LocalDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/**
 * Adds years, months and days with calendar clamping (29-02 + 1 year = 28-02;
 * 31-01 + 1 month = 28-02 or 29-02).
 */
export function plusCalendar(
  date: LocalDate,
  add: { years?: number; months?: number; days?: number },
): LocalDate {
  const result = DateTime.utc(date.year, date.month, date.day).plus(add);
  return { year: result.year, month: result.month, day: result.day };
}

/** Whole years from `birth` to `on` (the birthday itself counts; 29-02 birthdays count on 28-02 in common years). */
export function ageOn(birth: LocalDate, on: LocalDate): number {
  let age = on.year - birth.year;
  const birthdayThisYear = plusCalendar(birth, { years: age });
  if (compareLocalDates(on, birthdayThisYear) < 0) age -= 1;
  return age;
}

function pad(n: number): string {
  return n.toString().padStart(2, '0');
}
