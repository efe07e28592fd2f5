import fc from 'fast-check';
import { DateTime } from 'luxon';
import { formatLocalDateTime } from './clock';

/** The reference: luxon asked for every instant, no cache. */
const luxonFormat = (instant: Date, zone: string) =>
  DateTime.fromJSDate(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS");

const ZONES = [
  'Europe/Moscow', // the default; +03:00, DST until 2011, +04:00 in 2011-2014
  'UTC',
  'Europe/Berlin', // DST at 01:00 UTC
  'America/New_York',
  'Australia/Lord_Howe', // 30-minute DST
  'Asia/Kathmandu', // +05:45
  'America/St_Johns', // -03:30 with DST
  'Pacific/Chatham', // +12:45 / +13:45
];

describe('formatLocalDateTime', () => {
  it('formats the business time zone as a local ISO date-time', () => {
    expect(formatLocalDateTime(new Date('2026-11-23T21:04:05.007Z'), 'Europe/Moscow')).toBe(
      '2026-11-24T00:04:05.007',
    );
    expect(formatLocalDateTime(new Date('2026-11-23T21:04:05.007Z'), 'UTC')).toBe(
      '2026-11-23T21:04:05.007',
    );
  });

  it('matches luxon for any instant from 1900 to 2100 in zones with odd offsets and DST', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom(...ZONES),
        (epochMs, zone) => {
          const instant = new Date(epochMs);
          expect(formatLocalDateTime(instant, zone)).toBe(luxonFormat(instant, zone));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('is exact on every millisecond around DST transitions, also once their hours are cached', () => {
    const transitions: [string, string][] = [
      ['Europe/Berlin', '2026-03-29T01:00:00.000Z'],
      ['Europe/Berlin', '2026-10-25T01:00:00.000Z'],
      ['Australia/Lord_Howe', '2026-04-04T15:00:00.000Z'],
      ['America/St_Johns', '2026-11-01T04:30:00.000Z'],
      ['Europe/Moscow', '2011-03-26T23:00:00.000Z'],
      ['Europe/Moscow', '2014-10-25T22:00:00.000Z'],
    ];
    for (const [zone, at] of transitions) {
      const t = Date.parse(at);
      // Twice, so the second pass reads whatever the first one cached.
      for (let pass = 0; pass < 2; pass++) {
        for (const delta of [
          -3_600_001, -3_600_000, -60_000, -1_000, -1, 0, 1, 1_000, 60_000, 3_599_999, 3_600_000,
        ]) {
          const instant = new Date(t + delta);
          expect(`${zone} ${formatLocalDateTime(instant, zone)}`).toBe(
            `${zone} ${luxonFormat(instant, zone)}`,
          );
        }
      }
    }
  });

  it('refuses an unknown time zone', () => {
    expect(() => formatLocalDateTime(new Date(), 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
