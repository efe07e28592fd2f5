import fc from 'fast-check';
import { DateTime } from 'luxon';
import { localDateIn } from './local-date';

const ZONES = ['Europe/Moscow', 'UTC', 'America/Santiago', 'Asia/Tehran', 'Pacific/Apia'];

describe('localDateIn', () => {
  it('is the business date in Moscow on both sides of midnight', () => {
    expect(localDateIn(new Date('2026-11-23T20:59:59.999Z'), 'Europe/Moscow')).toEqual({
      year: 2026,
      month: 11,
      day: 23,
    });
    expect(localDateIn(new Date('2026-11-23T21:00:00.000Z'), 'Europe/Moscow')).toEqual({
      year: 2026,
      month: 11,
      day: 24,
    });
  });

  it('matches luxon for any instant, also in zones whose DST changes at midnight', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom(...ZONES),
        (epochMs, zone) => {
          const expected = DateTime.fromMillis(epochMs, { zone });
          expect(localDateIn(new Date(epochMs), zone)).toEqual({
            year: expected.year,
            month: expected.month,
            day: expected.day,
          });
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it('turns the date exactly at a midnight DST change (America/Santiago, 2026-09-06)', () => {
    // Clocks go from 24:00 -04:00 to 01:00 -03:00: 2026-09-06T04:00Z is already the 6th.
    const change = Date.parse('2026-09-06T04:00:00.000Z');
    for (const delta of [-1, 0, 1]) {
      const expected = DateTime.fromMillis(change + delta, { zone: 'America/Santiago' });
      expect(localDateIn(new Date(change + delta), 'America/Santiago').day).toBe(expected.day);
    }
  });
});
