import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { CURRENCIES, Currency, REGISTRATION_MANAGER_PIN_PATTERN } from '@bank/shared/identifiers';
import { ClientType, Gender } from '../entities/client.entity';
import { AddressDto } from './address.dto';
import { ContactInfoDto } from './contact-info.dto';
import { EMBOSSED_NAME_PATTERN } from '@bank/shared/validation';
import {
  RequiredBoolean,
  RequiredEmbossedName,
  RequiredEnum,
  RequiredName,
  RequiredObject,
  ru,
} from './field.decorators';
import { PassportDataDto } from './passport-data.dto';

export const GENDERS: readonly Gender[] = ['MALE', 'FEMALE'];
export const CLIENT_TYPES: readonly ClientType[] = ['UP'];

/** Registration request (spec 2.1). Every field is required; unknown fields are refused. */
export class RegisterClientDto {
  @ApiProperty({ description: 'Фамилия', maxLength: 35, example: 'Петров' })
  @RequiredName(35)
  lastName!: string;

  @ApiProperty({ description: 'Имя', maxLength: 35, example: 'Иван' })
  @RequiredName(35)
  firstName!: string;

  @ApiProperty({ description: 'Отчество', maxLength: 35, example: 'Сергеевич' })
  @RequiredName(35)
  middleName!: string;

  @ApiProperty({ description: 'Пол', enum: GENDERS, example: 'MALE' })
  @RequiredEnum(GENDERS)
  gender!: Gender;

  @ApiProperty({
    description: 'Тип клиента (допустимо только UP)',
    enum: CLIENT_TYPES,
    example: 'UP',
  })
  @RequiredEnum(CLIENT_TYPES)
  clientType!: ClientType;

  @ApiProperty({ description: 'Признак банкротства физического лица', example: false })
  @RequiredBoolean()
  bankruptIndividual!: boolean;

  @ApiProperty({
    description: 'Признак банкротства индивидуального предпринимателя',
    example: false,
  })
  @RequiredBoolean()
  bankruptEntrepreneur!: boolean;

  @ApiProperty({
    description:
      'Имя для эмбоссирования на карте: заглавные латинские буквы и пробелы, хотя бы одна буква',
    maxLength: 30,
    pattern: EMBOSSED_NAME_PATTERN.source,
    example: 'IVAN PETROV',
  })
  @RequiredEmbossedName(30)
  embossingName!: string;

  @ApiProperty({ description: 'Контактные данные', type: ContactInfoDto })
  @RequiredObject(() => ContactInfoDto)
  contactInfo!: ContactInfoDto;

  @ApiProperty({ description: 'Паспортные данные', type: PassportDataDto })
  @RequiredObject(() => PassportDataDto)
  passportData!: PassportDataDto;

  @ApiProperty({ description: 'Адрес фактического проживания', type: AddressDto })
  @RequiredObject(() => AddressDto)
  actualAddress!: AddressDto;

  @ApiProperty({ description: 'Адрес регистрации', type: AddressDto })
  @RequiredObject(() => AddressDto)
  registrationAddress!: AddressDto;

  @ApiProperty({ description: 'Валюта открываемого счёта', enum: CURRENCIES, example: 'RUR' })
  @RequiredEnum(CURRENCIES)
  account!: Currency;

  @ApiProperty({
    description:
      'PIN менеджера: 6 символов A-Z, 0-9 или _; должен принадлежать известному менеджеру',
    pattern: '^[A-Z0-9_]{6}$',
    example: 'M_0001',
  })
  @Matches(REGISTRATION_MANAGER_PIN_PATTERN, {
    message: ru('должен состоять из 6 символов: заглавные латинские буквы, цифры или _'),
  })
  managerPin!: string;
}
