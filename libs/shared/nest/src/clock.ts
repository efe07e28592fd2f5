import { DateTime } from 'luxon';

/** Source of "now". Injected everywhere a rule depends on time, so tests fix the instant. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock that stands still until moved; for tests and simulations. */
export class FixedClock extends Clock {
  private instant: Date;

  constructor(instant: Date | string) {
    super();
    this.instant = new Date(instant);
  }

  now(): Date {
    return new Date(this.instant);
  }

  set(instant: Date | string): void {
    this.instant = new Date(instant);
  }

  advance(ms: number): void {
    this.instant = new Date(this.instant.getTime() + ms);
  }
}

/** Injection token of the business time zone (IANA name, e.g. Europe/Moscow). */
export const BUSINESS_TIME_ZONE = Symbol('BUSINESS_TIME_ZONE');

/** ISO 8601 local date-time without zone, in the given time zone: 2026-11-23T15:04:05.123 */
export function formatLocalDateTime(instant: Date, timeZone: string): string {
  return DateTime.fromJSDate(instant, { zone: timeZone }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS");
}
