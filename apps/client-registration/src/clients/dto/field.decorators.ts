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
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import {
  IsEmbossedName,
  IsPassportBirthDate,
  IsPassportIssueDate,
  IsPersonName,
} from '@bank/shared/validation';

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
  tooEarly: 'не может быть раньше 01-01-1900',
  controlCharacters: 'не должно содержать управляющих или невидимых символов',
  embossedName: 'допустимы только заглавные латинские буквы и пробелы, хотя бы одна буква',
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

/** A person's name: required text under the shared name rule (not blank, no control characters). */
export function RequiredName(maxLength: number): PropertyDecorator {
  return applyDecorators(
    RequiredText(maxLength),
    IsPersonName({ blank: ru(MESSAGES.notBlank), control: ru(MESSAGES.controlCharacters) }),
  );
}

/** The name on the card: the shared embossed-name rule, at most `maxLength` characters. */
export function RequiredEmbossedName(maxLength: number): PropertyDecorator {
  return applyDecorators(
    RequiredText(maxLength),
    IsEmbossedName({ message: ru(MESSAGES.embossedName) }),
  );
}

/** The birth date of a passport (shared rules): real, not in the future, not before 01-01-1900. */
export function PassportBirthDate(): PropertyDecorator {
  return IsPassportBirthDate({
    date: ru(MESSAGES.date),
    notInFuture: ru(MESSAGES.notInFuture),
    tooEarly: ru(MESSAGES.tooEarly),
  });
}

/** The issue date of a passport (shared rules): real, not in the future, not before birth. */
export function PassportIssueDate(birthProperty: string): PropertyDecorator {
  return IsPassportIssueDate(birthProperty, {
    date: ru(MESSAGES.date),
    notInFuture: ru(MESSAGES.notInFuture),
    beforeBirth: ru(MESSAGES.issueBeforeBirth),
  });
}
