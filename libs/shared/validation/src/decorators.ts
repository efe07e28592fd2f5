import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsString, Matches, ValidateBy, ValidationOptions, buildMessage } from 'class-validator';
import {
  BRANCH_ID_PATTERN,
  PASSPORT_NUMBER_PATTERN,
  PASSPORT_SERIES_PATTERN,
  PHONE_PATTERN,
  RECIPIENT_USER_ID_PATTERN,
  USER_ID_PATTERN,
} from '@bank/shared/identifiers';
import { parseDdMmYyyy } from '@bank/shared/calendar';

/**
 * Composite decorators for the identifier formats and layouts of the specs. Each takes
 * ValidationOptions so a service can give its own (e.g. Russian) message.
 */

function patterned(
  pattern: RegExp,
  defaultMessage: string,
  options?: ValidationOptions,
): PropertyDecorator {
  return applyDecorators(
    IsString({ message: options?.message ?? `${defaultMessage}`, ...stripMessage(options) }),
    Matches(pattern, { message: defaultMessage, ...options }),
  );
}

function stripMessage(options?: ValidationOptions): ValidationOptions {
  if (!options) return {};
  const { message: _ignored, ...rest } = options;
  return rest;
}

export const USER_ID_MESSAGE = 'must be X followed by 5 characters A-Z or 0-9';

export const IsUserId = (options?: ValidationOptions) =>
  patterned(USER_ID_PATTERN, USER_ID_MESSAGE, options);

export const IsRecipientUserId = (options?: ValidationOptions) =>
  patterned(
    RECIPIENT_USER_ID_PATTERN,
    'must be an uppercase letter followed by 5 characters A-Z or 0-9',
    options,
  );

export const IsBranchId = (options?: ValidationOptions) =>
  patterned(BRANCH_ID_PATTERN, 'must be exactly 4 digits', options);

export const IsPhone = (options?: ValidationOptions) =>
  patterned(PHONE_PATTERN, 'must be 11 digits starting with 7', options);

export const IsPassportSeries = (options?: ValidationOptions) =>
  patterned(PASSPORT_SERIES_PATTERN, 'must be exactly 4 digits', options);

export const IsPassportNumber = (options?: ValidationOptions) =>
  patterned(PASSPORT_NUMBER_PATTERN, 'must be exactly 6 digits', options);

/** dd-MM-yyyy and a real calendar date. */
export function IsDdMmYyyy(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDdMmYyyy',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parseDdMmYyyy(value) !== null,
        defaultMessage: buildMessage(() => 'must be a real date in layout dd-MM-yyyy', options),
      },
    },
    options,
  );
}

/** H:mm or HH:mm, 24-hour clock (hour 0-23, minutes 00-59). */
export const TIME_HH_MM_PATTERN = /^([01]?\d|2[0-3]):[0-5]\d$/;

export const IsTimeHhMm = (options?: ValidationOptions) =>
  patterned(TIME_HH_MM_PATTERN, 'must be a time in layout HH:mm (00:00-23:59)', options);

/** Minutes since midnight of an H:mm / HH:mm string already validated by IsTimeHhMm. */
export function minutesOfDay(value: string): number {
  const [h, m] = value.split(':').map(Number);
  return h * 60 + m;
}

/** Decimal digits without sign, exponent, radix prefix, spaces or leading zeros. */
const DECIMAL_INTEGER = /^(0|[1-9][0-9]{0,14})$/;

/**
 * An integer of a query string or path, written in plain decimal digits, within [min, max].
 * `@Type(() => Number)` would take `0x10`, `+5`, `1e3`, ` 7 ` and `1e20` (a 500 from
 * PostgreSQL past 2^63); here they, a repeated parameter (an array) and anything out of range
 * are one 400 naming the range.
 */
export function IsQueryInteger(min: number, max: number): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && DECIMAL_INTEGER.test(value) ? Number(value) : value,
    ),
    ValidateBy({
      name: 'isQueryInteger',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max,
        defaultMessage: () => `must be an integer from ${min} to ${max} in decimal digits`,
      },
    }),
  );
}
