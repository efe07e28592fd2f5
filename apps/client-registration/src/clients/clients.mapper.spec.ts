import fc from 'fast-check';
import { DateTime } from 'luxon';
import { DATE_TIME_LAYOUT, formatDateTime, fromIsoDate, toIsoDate } from './clients.mapper';

describe('clients mapper', () => {
  it('turns dd-MM-yyyy into the yyyy-MM-dd of a date column and back', () => {
    expect(toIsoDate('29-02-2000')).toBe('2000-02-29');
    expect(toIsoDate('01-01-0099')).toBe('0099-01-01');
    expect(fromIsoDate('2000-02-29')).toEqual({ year: 2000, month: 2, day: 29 });
  });

  it('refuses a date that validation would have refused', () => {
    expect(() => toIsoDate('31-02-2000')).toThrow(RangeError);
  });

  it('formats instants as dd-MM-yyyy HH:mm:ss in the business time zone', () => {
    const instant = new Date('2026-11-22T21:30:05.999Z');
    expect(formatDateTime(instant, 'Europe/Moscow')).toBe('23-11-2026 00:30:05');
    expect(formatDateTime(instant, 'UTC')).toBe('22-11-2026 21:30:05');
  });

  it('formats like luxon with DATE_TIME_LAYOUT for any instant and zone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom('Europe/Moscow', 'UTC', 'Europe/Berlin', 'Asia/Kathmandu'),
        (epochMs, zone) => {
          expect(formatDateTime(new Date(epochMs), zone)).toBe(
            DateTime.fromMillis(epochMs, { zone }).toFormat(DATE_TIME_LAYOUT),
          );
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
