import { formatDdMmYyyy, localDateIn } from '@bank/shared/calendar';

/**
 * The one home of the card issue request id format (docs/api/card-issue.md): RCARDB + the business
 * day as ddMMyyyy + a 6-digit number of that day. The card issue SQL builds ids from these
 * constants (card-issues.sql.ts), the path pipe and DTOs validate with REQUEST_ID_PATTERN,
 * and the per-day sequence of migration 1795394039976 stops at REQUEST_IDS_PER_DAY - 1
 * (a migration is history: its MAXVALUE 999999 is checked against this file by a test).
 */
export const REQUEST_ID_PREFIX = 'RCARDB';
/** Width of the number of the day: 6 digits. */
export const REQUEST_ID_NUMBER_DIGITS = 6;
/** Ids a business day can hold: 000000 to 999999. */
export const REQUEST_IDS_PER_DAY = 10 ** REQUEST_ID_NUMBER_DIGITS;
/** RCARDB + ddMMyyyy (a real day-of-month and month) + 6 digits: 20 characters. */
export const REQUEST_ID_PATTERN = new RegExp(
  `^${REQUEST_ID_PREFIX}(0[1-9]|[12]\\d|3[01])(0[1-9]|1[0-2])\\d{4}\\d{${REQUEST_ID_NUMBER_DIGITS}}$`,
);

/** The business day of an instant in the business time zone, as it appears in an id: ddMMyyyy. */
export function requestIdBusinessDay(instant: Date, timeZone: string): string {
  return formatDdMmYyyy(localDateIn(instant, timeZone)).replaceAll('-', '');
}
