import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsObject,
  IsString,
  Matches,
  MaxLength,
  Validate,
  ValidateBy,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import { IsDdMmYyyy } from '@bank/shared/validation';
import { isIssuedBeforeBirth } from '../passport.rules';
import { NotInFutureConstraint } from './not-in-future.validator';
import { parseDdMmYyyy } from '@bank/shared/calendar';

/**
 * Field rules of the registration request with Russian messages. Each message function
 * says "обязательное поле" for a missing value and "должно быть строкой" for a value of the
 * wrong type, so a field breaking several constraints for one reason is reported once
 * (the validation pipe drops repeated messages).
 */

const MESSAGES = {
  required: 'обязательное поле',
  notString: 'должно быть строкой',
  notBlank: 'не должно быть пустым',
  maxLength: (max: number) => `длина не должна превышать ${max} символов`,
  notObject: 'должно быть объектом',
  notBoolean: 'должно быть логическим значением true или false',
  oneOf: (values: readonly string[]) => `допустимые значения: ${values.join(', ')}`,
  email: 'должен быть корректным адресом электронной почты',
  date: 'должна быть реальной датой в формате dd-MM-yyyy',
  notInFuture: 'не может быть позже текущей даты',
  issueBeforeBirth: 'не может быть раньше даты рождения',
} as const;

type Expected = 'string' | 'any';

/** A message function: the missing / wrong-type wording wins over the rule's own text. */
export function ru(text: string, expected: Expected = 'string') {
  return (args: ValidationArguments): string => {
    if (args.value === undefined || args.value === null) return MESSAGES.required;
    if (expected === 'string' && typeof args.value !== 'string') return MESSAGES.notString;
    return text;
  };
}

/** A required, non-blank string of at most `maxLength` characters, optionally matching a pattern. */
export function RequiredText(
  maxLength: number,
  pattern?: { regex: RegExp; message: string },
): PropertyDecorator {
  return applyDecorators(
    IsString({ message: ru(MESSAGES.notString) }),
    Matches(/\S/, { message: ru(MESSAGES.notBlank) }),
    MaxLength(maxLength, { message: ru(MESSAGES.maxLength(maxLength)) }),
    ...(pattern ? [Matches(pattern.regex, { message: ru(pattern.message) })] : []),
  );
}

export function RequiredEmail(maxLength: number): PropertyDecorator {
  return applyDecorators(RequiredText(maxLength), IsEmail({}, { message: ru(MESSAGES.email) }));
}

export function RequiredEnum(values: readonly string[]): PropertyDecorator {
  return IsIn(values, { message: ru(MESSAGES.oneOf(values), 'any') });
}

/** A JSON boolean; the string "true" is not one (no implicit conversion). */
export function RequiredBoolean(): PropertyDecorator {
  return IsBoolean({ message: ru(MESSAGES.notBoolean, 'any') });
}

/** A nested object validated as `type` (an array or a scalar is refused). */
export function RequiredObject(type: () => new () => object): PropertyDecorator {
  const message = ru(MESSAGES.notObject, 'any');
  return applyDecorators(IsObject({ message }), ValidateNested({ message }), Type(type));
}

/** A real calendar date dd-MM-yyyy that is not after the business date. */
export function PastOrTodayDate(): PropertyDecorator {
  return applyDecorators(
    IsDdMmYyyy({ message: ru(MESSAGES.date) }),
    Validate(NotInFutureConstraint, { message: ru(MESSAGES.notInFuture) }),
  );
}

/** Not before the date in the sibling property `birthProperty` (when both are real dates). */
export function NotBeforeBirthDate(birthProperty: string): PropertyDecorator {
  return ValidateBy(
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
      },
    },
    { message: ru(MESSAGES.issueBeforeBirth) },
  );
}
