import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { validate } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import {
  BUSINESS_TIME_ZONE,
  Clock,
  FixedClock,
  LocalDate,
  parseDdMmYyyy,
} from '@bank/shared/calendar';
import {
  IsPassportBirthDate,
  IsPassportIssueDate,
  NotInFutureConstraint,
  isBeforeEarliestBirthDate,
  isInFuture,
  isIssuedBeforeBirth,
} from './passport-dates';
import { useNestContainerForValidation } from './nest-container';

const d = (value: string): LocalDate => {
  const date = parseDdMmYyyy(value);
  if (!date) throw new Error(`bad test date ${value}`);
  return date;
};

describe('date helpers', () => {
  it('isInFuture: today is not in the future, tomorrow is', () => {
    expect(isInFuture(d('23-11-2026'), d('23-11-2026'))).toBe(false);
    expect(isInFuture(d('24-11-2026'), d('23-11-2026'))).toBe(true);
    expect(isInFuture(d('22-11-2026'), d('23-11-2026'))).toBe(false);
  });

  it('isIssuedBeforeBirth: the birth date itself is allowed', () => {
    expect(isIssuedBeforeBirth({ birthDate: d('10-05-2000'), issueDate: d('10-05-2000') })).toBe(
      false,
    );
    expect(isIssuedBeforeBirth({ birthDate: d('10-05-2000'), issueDate: d('09-05-2000') })).toBe(
      true,
    );
  });

  it('isBeforeEarliestBirthDate: 01-01-1900 is the first birth date accepted', () => {
    expect(isBeforeEarliestBirthDate(d('01-01-1900'))).toBe(false);
    expect(isBeforeEarliestBirthDate(d('31-12-1899'))).toBe(true);
  });
});

class Passport {
  @IsPassportBirthDate()
  birthDate!: string;

  @IsPassportIssueDate('birthDate')
  issueDate!: string;
}

@Module({
  providers: [
    NotInFutureConstraint,
    // 12:00 in Moscow on 23-11-2026.
    { provide: Clock, useValue: new FixedClock('2026-11-23T09:00:00.000Z') },
    { provide: BUSINESS_TIME_ZONE, useValue: 'Europe/Moscow' },
  ],
})
class DatesModule {}

describe('passport date decorators', () => {
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [DatesModule] }).compile();
    useNestContainerForValidation(moduleRef, [NotInFutureConstraint]);
  });

  const violations = async (birthDate: string, issueDate: string) => {
    const errors = await validate(plainToInstance(Passport, { birthDate, issueDate }));
    return Object.fromEntries(errors.map((e) => [e.property, Object.values(e.constraints ?? {})]));
  };

  it.each([
    ['15-03-1990', '20-03-2010', {}],
    ['01-01-1900', '23-11-2026', {}],
    ['23-11-2026', '23-11-2026', {}],
    [
      '24-11-2026',
      '24-11-2026',
      {
        birthDate: ['must not be after the current business date'],
        issueDate: ['must not be after the current business date'],
      },
    ],
    ['31-12-1899', '20-03-2010', { birthDate: ['must not be before 01-01-1900'] }],
    ['15-03-1990', '14-03-1990', { issueDate: ['must not be before birthDate'] }],
    [
      '31-02-1990',
      '30-02-2010',
      {
        birthDate: ['must be a real date in layout dd-MM-yyyy'],
        issueDate: ['must be a real date in layout dd-MM-yyyy'],
      },
    ],
  ])('birth %s, issue %s: %j', async (birth, issue, expected) => {
    expect(await violations(birth, issue)).toEqual(expected);
  });
});
