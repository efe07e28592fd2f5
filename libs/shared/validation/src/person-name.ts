import { applyDecorators } from '@nestjs/common';
import { Matches, ValidateBy, ValidationOptions } from 'class-validator';

/**
 * The one rule for the names of a person and on a card, in both services: a name is not blank
 * (whitespace only) and holds no control character: C0/C1 controls (tab, newline, escape,
 * bell...), format characters (bidirectional overrides, zero-width characters, soft hyphen)
 * and the line and paragraph separators. Such characters cannot be printed on a card or a
 * form, and they make one name look like another.
 */
const CONTROL_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

export const NAME_BLANK_MESSAGE = 'must not be blank';
export const NAME_CONTROL_MESSAGE = 'must not contain control or invisible formatting characters';

export function isBlankName(value: string): boolean {
  return !/\S/.test(value);
}

export function hasControlCharacters(value: string): boolean {
  return CONTROL_CHARACTERS.test(value);
}

type Message = ValidationOptions['message'];

/** A person's name (first, middle, last): not blank, no control characters. */
export function IsPersonName(
  messages: { blank?: Message; control?: Message } = {},
): PropertyDecorator {
  return applyDecorators(
    ValidateBy(
      {
        name: 'isNotBlankName',
        validator: {
          validate: (value: unknown) => typeof value !== 'string' || !isBlankName(value),
          defaultMessage: () => NAME_BLANK_MESSAGE,
        },
      },
      messages.blank ? { message: messages.blank } : undefined,
    ),
    ValidateBy(
      {
        name: 'hasNoControlCharacters',
        validator: {
          validate: (value: unknown) => typeof value !== 'string' || !hasControlCharacters(value),
          defaultMessage: () => NAME_CONTROL_MESSAGE,
        },
      },
      messages.control ? { message: messages.control } : undefined,
    ),
  );
}

/**
 * The name on a card: uppercase Latin letters and spaces (U+0020; a tab or newline is a
 * control character, not whitespace that can be embossed), at least one letter.
 */
export const EMBOSSED_NAME_PATTERN = /^[A-Z ]*[A-Z][A-Z ]*$/;
export const EMBOSSED_NAME_MESSAGE =
  'must contain only uppercase Latin letters and spaces, at least one letter';

export function IsEmbossedName(options?: ValidationOptions): PropertyDecorator {
  return Matches(EMBOSSED_NAME_PATTERN, { message: EMBOSSED_NAME_MESSAGE, ...options });
}
