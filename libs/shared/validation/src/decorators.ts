import { applyDecorators } from '@nestjs/common';
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

/** Uppercase Latin letters and whitespace, at least one letter-or-space character. */
export const IsEmbossedName = (options?: ValidationOptions) =>
  patterned(/^[A-Z\s]+$/, 'must contain only uppercase Latin letters and whitespace', options);

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
