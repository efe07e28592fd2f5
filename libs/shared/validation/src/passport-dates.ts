import { Inject, Injectable, applyDecorators } from '@nestjs/common';
import {
  Validate,
  ValidateBy,
  ValidationArguments,
  ValidationOptions,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import {
  BUSINESS_TIME_ZONE,
  Clock,
  LocalDate,
  compareLocalDates,
  localDateIn,
  parseDdMmYyyy,
} from '@bank/shared/calendar';
import { IsDdMmYyyy } from './decorators';

/**
 * The date rules of a passport, the same wherever one is taken (a client's registration, a
 * user of the card issue deployment, a card's third-party holder): real dates, a birth date
 * neither in the future nor before EARLIEST_BIRTH_DATE, an issue date neither in the future
 * nor before the birth date. "Today" is the business date (the injected clock in the business
 * time zone).
 */

/** No one alive was born earlier (docs/decisions/0038-strict-input.md): an earlier date is a
 * typing error. */
export const EARLIEST_BIRTH_DATE: LocalDate = { year: 1900, month: 1, day: 1 };

/** True when `date` is after `today` (today itself is not in the future). */
export function isInFuture(date: LocalDate, today: LocalDate): boolean {
  return compareLocalDates(date, today) > 0;
}

/** True when the passport was issued before the holder was born. */
export function isIssuedBeforeBirth({
  birthDate,
  issueDate,
}: {
  birthDate: LocalDate;
  issueDate: LocalDate;
}): boolean {
  return compareLocalDates(issueDate, birthDate) < 0;
}

/** True when the birth date is before EARLIEST_BIRTH_DATE. */
export function isBeforeEarliestBirthDate(birthDate: LocalDate): boolean {
  return compareLocalDates(birthDate, EARLIEST_BIRTH_DATE) < 0;
}

/**
 * A dd-MM-yyyy date must not be after the business date. Needs the injected clock, so it is
 * a Nest provider (CoreModule provides it; configureHttpApp hands class-validator the Nest
 * container). Values that are not real dates pass here: IsDdMmYyyy reports them.
 */
@ValidatorConstraint({ name: 'notInFuture' })
@Injectable()
export class NotInFutureConstraint implements ValidatorConstraintInterface {
  constructor(
    private readonly clock: Clock,
    @Inject(BUSINESS_TIME_ZONE) private readonly timeZone: string,
  ) {}

  validate(value: unknown): boolean {
    if (!this.clock) {
      throw new Error('NotInFutureConstraint was created outside the Nest container');
    }
    if (typeof value !== 'string') return true;
    const date = parseDdMmYyyy(value);
    if (!date) return true;
    return !isInFuture(date, localDateIn(this.clock.now(), this.timeZone));
  }

  defaultMessage(): string {
    return 'must not be after the current business date';
  }
}

type Message = ValidationOptions['message'];

export interface BirthDateMessages {
  date?: Message;
  notInFuture?: Message;
  tooEarly?: Message;
}

export interface IssueDateMessages {
  date?: Message;
  notInFuture?: Message;
  beforeBirth?: Message;
}

const EARLIEST = '01-01-1900';

/** A passport's birth date: a real date dd-MM-yyyy, not in the future, not before 01-01-1900. */
export function IsPassportBirthDate(messages: BirthDateMessages = {}): PropertyDecorator {
  return applyDecorators(
    IsDdMmYyyy(messages.date ? { message: messages.date } : undefined),
    Validate(NotInFutureConstraint, { message: messages.notInFuture }),
    ValidateBy(
      {
        name: 'notBeforeEarliestBirthDate',
        validator: {
          validate: (value: unknown) => {
            const date = typeof value === 'string' ? parseDdMmYyyy(value) : null;
            return !date || !isBeforeEarliestBirthDate(date);
          },
          defaultMessage: () => `must not be before ${EARLIEST}`,
        },
      },
      messages.tooEarly ? { message: messages.tooEarly } : undefined,
    ),
  );
}

/**
 * A passport's issue date: a real date dd-MM-yyyy, not in the future, not before the birth
 * date in the sibling property `birthProperty` (when that is a real date).
 */
export function IsPassportIssueDate(
  birthProperty: string,
  messages: IssueDateMessages = {},
): PropertyDecorator {
  return applyDecorators(
    IsDdMmYyyy(messages.date ? { message: messages.date } : undefined),
    Validate(NotInFutureConstraint, { message: messages.notInFuture }),
    ValidateBy(
      {
        name: 'notBeforeBirthDate',
        validator: {
          validate: (value: unknown, args?: ValidationArguments) => {
            const birth = (args?.object as Record<string, unknown> | undefined)?.[birthProperty];
            if (typeof value !== 'string' || typeof birth !== 'string') return true;
            const issueDate = parseDdMmYyyy(value);
            const birthDate = parseDdMmYyyy(birth);
            if (!issueDate || !birthDate) return true;
            return !isIssuedBeforeBirth({ birthDate, issueDate });
          },
          defaultMessage: () => `must not be before ${birthProperty}`,
        },
      },
      messages.beforeBirth ? { message: messages.beforeBirth } : undefined,
    ),
  );
}
