import { LocalDate, parseDdMmYyyy } from '@bank/shared/calendar';
import { checkAgeAndPassport } from './passport.rules';

const d = (value: string): LocalDate => {
  const date = parseDdMmYyyy(value);
  if (!date) throw new Error(`bad test date ${value}`);
  return date;
};

const check = (birth: string, issue: string, today: string) =>
  checkAgeAndPassport({ birthDate: d(birth), issueDate: d(issue) }, d(today));

describe('checkAgeAndPassport (spec 2.4)', () => {
  describe('minimum age 18', () => {
    it('accepts the 18th birthday itself', () => {
      expect(check('23-11-2008', '01-12-2022', '23-11-2026')).toBeNull();
    });

    it('refuses the day before the 18th birthday, saying when the client turns 18', () => {
      expect(check('23-11-2008', '01-12-2022', '22-11-2026')).toEqual({
        kind: 'UNDERAGE',
        age: 17,
        adultOn: d('23-11-2026'),
      });
    });

    it('refuses a newborn', () => {
      expect(check('23-11-2026', '23-11-2026', '23-11-2026')).toMatchObject({
        kind: 'UNDERAGE',
        age: 0,
      });
    });

    it('born 29-02: 18 on 28-02 of a common year, not the day before', () => {
      expect(check('29-02-2008', '01-03-2022', '28-02-2026')).toBeNull();
      expect(check('29-02-2008', '01-03-2022', '27-02-2026')).toMatchObject({
        kind: 'UNDERAGE',
        age: 17,
        adultOn: d('28-02-2026'),
      });
    });
  });

  describe('passport issued before the 20th birthday (age 20 to 44)', () => {
    // 20th birthday 15-03-2026 (docs/api/client-registration.md): the old passport is accepted up to 15-04-2026.
    const birth = '15-03-2006';
    const oldPassport = '01-04-2020';

    it('accepts it on the 20th birthday', () => {
      expect(check(birth, oldPassport, '15-03-2026')).toBeNull();
    });

    it('accepts it on the last grace day (birthday + one calendar month)', () => {
      expect(check(birth, oldPassport, '15-04-2026')).toBeNull();
    });

    it('refuses it the day after the last grace day', () => {
      expect(check(birth, oldPassport, '16-04-2026')).toEqual({
        kind: 'PASSPORT_OUTDATED',
        replacementAge: 20,
        birthday: d('15-03-2026'),
        lastGraceDay: d('15-04-2026'),
      });
    });

    it('refuses it at 44', () => {
      expect(check(birth, oldPassport, '14-03-2050')).toMatchObject({
        kind: 'PASSPORT_OUTDATED',
        replacementAge: 20,
      });
    });

    it('accepts a passport issued on the 20th birthday itself, or after it', () => {
      expect(check(birth, '15-03-2026', '01-01-2030')).toBeNull();
      expect(check(birth, '20-03-2026', '01-01-2030')).toBeNull();
    });

    it('refuses a passport issued the day before the 20th birthday, after the grace', () => {
      expect(check(birth, '14-03-2026', '16-04-2026')).toMatchObject({ replacementAge: 20 });
    });

    it('has no replacement rule at 18 and 19', () => {
      expect(check(birth, oldPassport, '15-03-2024')).toBeNull();
      expect(check(birth, oldPassport, '14-03-2026')).toBeNull();
    });

    it('clamps the grace month: 20th birthday 31-01 -> last grace day 28-02', () => {
      expect(check('31-01-2006', '01-02-2020', '28-02-2026')).toBeNull();
      expect(check('31-01-2006', '01-02-2020', '01-03-2026')).toMatchObject({
        lastGraceDay: d('28-02-2026'),
      });
    });

    it('born 29-02-2004: 20th birthday 29-02-2024 (leap), grace up to 29-03-2024', () => {
      expect(check('29-02-2004', '01-03-2018', '29-03-2024')).toBeNull();
      expect(check('29-02-2004', '01-03-2018', '30-03-2024')).toMatchObject({
        birthday: d('29-02-2024'),
        lastGraceDay: d('29-03-2024'),
      });
    });

    it('born 29-02-2000: 20th birthday 29-02-2020, grace up to 29-03-2020', () => {
      expect(check('29-02-2000', '01-03-2014', '29-03-2020')).toBeNull();
      expect(check('29-02-2000', '01-03-2014', '30-03-2020')).toMatchObject({ replacementAge: 20 });
    });
  });

  describe('passport issued before the 45th birthday (age 45 and over)', () => {
    const birth = '15-03-1981';
    const passportAt20 = '20-03-2001';

    it('accepts it at 44 (issued after the 20th birthday)', () => {
      expect(check(birth, passportAt20, '14-03-2026')).toBeNull();
    });

    it('accepts it on the 45th birthday and on the last grace day', () => {
      expect(check(birth, passportAt20, '15-03-2026')).toBeNull();
      expect(check(birth, passportAt20, '15-04-2026')).toBeNull();
    });

    it('refuses it the day after the last grace day', () => {
      expect(check(birth, passportAt20, '16-04-2026')).toEqual({
        kind: 'PASSPORT_OUTDATED',
        replacementAge: 45,
        birthday: d('15-03-2026'),
        lastGraceDay: d('15-04-2026'),
      });
    });

    it('refuses it at 80', () => {
      expect(check(birth, passportAt20, '01-01-2061')).toMatchObject({ replacementAge: 45 });
    });

    it('accepts a passport issued on or after the 45th birthday', () => {
      expect(check(birth, '15-03-2026', '01-01-2040')).toBeNull();
    });

    it('applies only the 45 rule from 45 on, as the table reads', () => {
      // Issued before the 20th birthday but still inside the 45th grace month.
      expect(check(birth, '01-01-1999', '15-04-2026')).toBeNull();
      expect(check(birth, '01-01-1999', '16-04-2026')).toMatchObject({ replacementAge: 45 });
    });

    it('born 29-02-1980: 45th birthday 28-02-2025, grace up to 28-03-2025', () => {
      expect(check('29-02-1980', '01-03-2000', '28-03-2025')).toBeNull();
      expect(check('29-02-1980', '01-03-2000', '29-03-2025')).toMatchObject({
        birthday: d('28-02-2025'),
        lastGraceDay: d('28-03-2025'),
      });
    });
  });
});
