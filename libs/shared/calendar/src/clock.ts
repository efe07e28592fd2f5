import { localWallClock } from './local-date';

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

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** ISO 8601 local date-time without zone, in the given time zone: 2026-11-23T15:04:05.123 */
export function formatLocalDateTime(instant: Date, timeZone: string): string {
  const local = localWallClock(instant, timeZone);
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}` +
    `T${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}` +
    `.${pad(local.getUTCMilliseconds(), 3)}`
  );
}
