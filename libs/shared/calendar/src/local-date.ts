import { DateTime, IANAZone } from 'luxon';

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

const HOUR_MS = 3_600_000;
const MAX_CACHED_HOURS = 100_000;

/**
 * UTC offsets (minutes) of one time zone, cached per UTC hour. Asking the zone database
 * (Intl) is the costly part of formatting a date-time, and an offset changes at most at a
 * transition: an hour whose first and last millisecond have the same offset holds no
 * transition (zones change at most twice a year), so its offset is cached; an hour with a
 * transition is never cached and each instant in it is asked exactly.
 */
class ZoneOffsets {
  private readonly zone: IANAZone;
  private readonly byHour = new Map<number, number>();

  constructor(name: string) {
    this.zone = IANAZone.create(name);
    if (!this.zone.isValid) throw new RangeError(`Unknown time zone: ${name}`);
  }

  at(epochMs: number): number {
    const hour = Math.floor(epochMs / HOUR_MS);
    const cached = this.byHour.get(hour);
    if (cached !== undefined) return cached;
    const first = this.zone.offset(hour * HOUR_MS);
    if (first !== this.zone.offset(hour * HOUR_MS + HOUR_MS - 1)) return this.zone.offset(epochMs);
    if (this.byHour.size >= MAX_CACHED_HOURS) this.byHour.clear();
    this.byHour.set(hour, first);
    return first;
  }
}

const zones = new Map<string, ZoneOffsets>();

function zoneOffsets(timeZone: string): ZoneOffsets {
  let offsets = zones.get(timeZone);
  if (!offsets) {
    offsets = new ZoneOffsets(timeZone);
    zones.set(timeZone, offsets);
  }
  return offsets;
}

/**
 * The wall-clock time of an instant in a time zone, as a Date whose UTC fields (getUTCHours,
 * ...) are the local ones. Time zone offsets come from the zone database through a cache.
 */
export function localWallClock(instant: Date, timeZone: string): Date {
  const epochMs = instant.getTime();
  return new Date(epochMs + zoneOffsets(timeZone).at(epochMs) * 60_000);
}

/** The calendar date of an instant in a time zone (e.g. the business date in Europe/Moscow). */
export function localDateIn(instant: Date, timeZone: string): LocalDate {
  const local = localWallClock(instant, timeZone);
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
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
