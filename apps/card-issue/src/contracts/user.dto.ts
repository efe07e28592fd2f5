import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { USER_MANAGER_PIN_PATTERN } from '@bank/shared/identifiers';
import {
  IsEmbossedName,
  IsPassportBirthDate,
  IsPassportIssueDate,
  IsPassportNumber,
  IsPassportSeries,
  IsPersonName,
  IsPhone,
  EMBOSSED_NAME_PATTERN,
} from '@bank/shared/validation';

/** Spec part 8: names, places, address parts and e-mail are at most 150 characters. */
export const MAX_TEXT = 150;
const MAX_MANAGER_PIN = 20;

/** The shared name rule, for the OpenAPI descriptions. */
export const NAME_DESCRIPTION = 'Not blank; no control or invisible formatting characters';

const GENDERS = ['MALE', 'FEMALE'] as const;
const CLIENT_TYPES = ['UP', 'FL', 'IP'] as const;
const ACCOUNTS = ['RUR', 'USD', 'EUR'] as const;

/** A required text of at most 150 characters. */
const RequiredText = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(MAX_TEXT));

/** An optional text of at most 150 characters. */
const OptionalText = () => applyDecorators(IsOptional(), IsString(), MaxLength(MAX_TEXT));

/** A person's name: required text, not blank, no control characters (the shared rule). */
const RequiredName = () => applyDecorators(RequiredText(), IsPersonName());

/** An optional name under the same rule. */
const OptionalName = () => applyDecorators(OptionalText(), IsPersonName());

/** A required nested object, validated field by field. */
const NestedObject = (type: () => new () => object) =>
  applyDecorators(IsObject(), ValidateNested(), Type(type));

export class AddressDto {
  @ApiProperty({ maxLength: MAX_TEXT, example: 'Russia' })
  @RequiredText()
  country!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Moscow region' })
  @RequiredText()
  region!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Moscow' })
  @RequiredText()
  city!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Tverskaya' })
  @RequiredText()
  street!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: '1' })
  @RequiredText()
  building!: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT, example: '12' })
  @OptionalText()
  apartment?: string;
}

export class ContactInfoDto {
  @ApiProperty({
    pattern: '^7\\d{10}$',
    example: '79161234567',
    description: '11 digits, starts with 7',
  })
  @IsPhone()
  phone!: string;

  @ApiProperty({ maxLength: MAX_TEXT, format: 'email', example: 'ivan.petrov@example.com' })
  @IsEmail({}, { message: 'must be a valid e-mail address' })
  @MaxLength(MAX_TEXT)
  email!: string;
}

export class PassportDataDto {
  @ApiProperty({
    example: '15-03-1990',
    description:
      'Real date in layout dd-MM-yyyy, not after the current business date, not before 01-01-1900',
  })
  @IsPassportBirthDate()
  birthDate!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Moscow' })
  @RequiredText()
  birthPlace!: string;

  @ApiProperty({
    example: '20-04-2010',
    description:
      'Real date in layout dd-MM-yyyy, not after the current business date, not before birthDate',
  })
  @IsPassportIssueDate('birthDate')
  issueDate!: string;

  @ApiProperty({ pattern: '^\\d{4}$', example: '4510' })
  @IsPassportSeries()
  series!: string;

  @ApiProperty({ pattern: '^\\d{6}$', example: '123456' })
  @IsPassportNumber()
  number!: string;
}

/**
 * The User object of card-issue spec 2.2: the body of the user service's create and
 * cardHolder.user of a card issue request.
 */
export class CreateUserDto {
  @ApiProperty({ maxLength: MAX_TEXT, example: 'Ivan', description: NAME_DESCRIPTION })
  @RequiredName()
  firstName!: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT, example: 'Ivanovich', description: NAME_DESCRIPTION })
  @OptionalName()
  middleName?: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Petrov', description: NAME_DESCRIPTION })
  @RequiredName()
  lastName!: string;

  @ApiProperty({ enum: GENDERS, example: 'MALE' })
  @IsIn(GENDERS, { message: `must be one of ${GENDERS.join(', ')}` })
  gender!: (typeof GENDERS)[number];

  @ApiProperty({ enum: CLIENT_TYPES, example: 'FL' })
  @IsIn(CLIENT_TYPES, { message: `must be one of ${CLIENT_TYPES.join(', ')}` })
  clientType!: (typeof CLIENT_TYPES)[number];

  @ApiProperty({ example: false })
  @IsBoolean()
  bankruptIndividual!: boolean;

  @ApiProperty({ example: false })
  @IsBoolean()
  bankruptEntrepreneur!: boolean;

  @ApiProperty({ type: ContactInfoDto })
  @NestedObject(() => ContactInfoDto)
  contactInfo!: ContactInfoDto;

  @ApiProperty({
    maxLength: MAX_TEXT,
    pattern: EMBOSSED_NAME_PATTERN.source,
    example: 'IVAN PETROV',
    description: 'Uppercase Latin letters and spaces, at least one letter',
  })
  @IsEmbossedName()
  @MaxLength(MAX_TEXT)
  embossingName!: string;

  @ApiProperty({ type: PassportDataDto })
  @NestedObject(() => PassportDataDto)
  passportData!: PassportDataDto;

  @ApiProperty({ type: AddressDto })
  @NestedObject(() => AddressDto)
  actualAddress!: AddressDto;

  @ApiProperty({ type: AddressDto })
  @NestedObject(() => AddressDto)
  registrationAddress!: AddressDto;

  @ApiProperty({ enum: ACCOUNTS, example: 'RUR' })
  @IsIn(ACCOUNTS, { message: `must be one of ${ACCOUNTS.join(', ')}` })
  account!: (typeof ACCOUNTS)[number];

  @ApiProperty({
    maxLength: MAX_MANAGER_PIN,
    pattern: USER_MANAGER_PIN_PATTERN.source,
    example: 'M_0001',
    description: 'One uppercase letter, underscore, 4 characters from A-Z and 0-9',
  })
  @IsString()
  @MaxLength(MAX_MANAGER_PIN)
  @Matches(USER_MANAGER_PIN_PATTERN, {
    message: 'must be an uppercase letter, an underscore and 4 characters A-Z or 0-9',
  })
  managerPin!: string;
}
