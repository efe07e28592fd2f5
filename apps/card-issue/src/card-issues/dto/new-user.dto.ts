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
  IsDdMmYyyy,
  IsEmbossedName,
  IsPassportNumber,
  IsPassportSeries,
  IsPhone,
} from '@bank/shared/validation';
import { AddressDto, MAX_TEXT } from './address.dto';

export class ContactInfoDto {
  @ApiProperty({ example: '79161234567', description: '11 digits, starts with 7' })
  @IsPhone()
  phone!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'ivan.petrov@example.com' })
  @IsString()
  @MaxLength(MAX_TEXT)
  @IsEmail({}, { message: 'must be a valid e-mail address' })
  email!: string;
}

export class PassportDataDto {
  @ApiProperty({ example: '15-03-1990', description: 'dd-MM-yyyy' })
  @IsDdMmYyyy()
  birthDate!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'г. Москва' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  birthPlace!: string;

  @ApiProperty({ example: '20-03-2010', description: 'dd-MM-yyyy' })
  @IsDdMmYyyy()
  issueDate!: string;

  @ApiProperty({ example: '4510', description: 'Exactly 4 digits' })
  @IsPassportSeries()
  series!: string;

  @ApiProperty({ example: '123456', description: 'Exactly 6 digits' })
  @IsPassportNumber()
  number!: string;
}

/** A new user (card-issue spec 2.2, User): the holder of a card for a third party. */
export class NewUserDto {
  @ApiProperty({ maxLength: MAX_TEXT, example: 'Иван' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  firstName!: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT, example: 'Иванович' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  middleName?: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Петров' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  lastName!: string;

  @ApiProperty({ enum: ['MALE', 'FEMALE'] })
  @IsIn(['MALE', 'FEMALE'])
  gender!: 'MALE' | 'FEMALE';

  @ApiProperty({ enum: ['UP', 'FL', 'IP'] })
  @IsIn(['UP', 'FL', 'IP'])
  clientType!: 'UP' | 'FL' | 'IP';

  @ApiProperty()
  @IsBoolean()
  bankruptIndividual!: boolean;

  @ApiProperty()
  @IsBoolean()
  bankruptEntrepreneur!: boolean;

  @ApiProperty({ type: ContactInfoDto })
  @IsObject()
  @ValidateNested()
  @Type(() => ContactInfoDto)
  contactInfo!: ContactInfoDto;

  @ApiProperty({
    maxLength: MAX_TEXT,
    example: 'IVAN PETROV',
    description: 'Uppercase Latin letters and whitespace',
  })
  @IsEmbossedName()
  @MaxLength(MAX_TEXT)
  embossingName!: string;

  @ApiProperty({ type: PassportDataDto })
  @IsObject()
  @ValidateNested()
  @Type(() => PassportDataDto)
  passportData!: PassportDataDto;

  @ApiProperty({ type: AddressDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AddressDto)
  actualAddress!: AddressDto;

  @ApiProperty({ type: AddressDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AddressDto)
  registrationAddress!: AddressDto;

  @ApiProperty({ enum: ['RUR', 'USD', 'EUR'] })
  @IsIn(['RUR', 'USD', 'EUR'])
  account!: 'RUR' | 'USD' | 'EUR';

  @ApiProperty({
    maxLength: 20,
    example: 'M_0001',
    description: 'Uppercase letter, underscore, 4 of A-Z 0-9',
  })
  @IsString()
  @MaxLength(20)
  @Matches(USER_MANAGER_PIN_PATTERN, {
    message: 'must be an uppercase letter, an underscore and 4 characters A-Z or 0-9',
  })
  managerPin!: string;
}
