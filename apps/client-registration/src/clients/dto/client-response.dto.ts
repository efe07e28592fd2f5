import { ApiProperty } from '@nestjs/swagger';
import { CURRENCIES, Currency } from '@bank/shared/identifiers';
import { ClientType, Gender } from '../entities/client.entity';
import { AddressDto } from './address.dto';
import { ContactInfoDto } from './contact-info.dto';
import { PassportDataDto } from './passport-data.dto';
import { CLIENT_TYPES, GENDERS } from './register-client.dto';

export class AccountResponseDto {
  @ApiProperty({
    description: '40702, код валюты (810 / 840 / 978), затем 12 случайных цифр',
    minLength: 20,
    maxLength: 20,
    example: '40702810123456789012',
  })
  accountNumber!: string;

  @ApiProperty({ description: 'Валюта счёта', enum: CURRENCIES, example: 'RUR' })
  currency!: Currency;

  @ApiProperty({ description: 'Режим учёта счёта', example: 100 })
  accountingMode!: number;
}

/** Client (spec 2.2): every request field under its name, the account object and the dates. */
export class ClientResponseDto {
  @ApiProperty({
    description: 'Идентификатор клиента',
    format: 'uuid',
    example: '3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21',
  })
  id!: string;

  @ApiProperty({ example: 'Петров' })
  lastName!: string;

  @ApiProperty({ example: 'Иван' })
  firstName!: string;

  @ApiProperty({ example: 'Сергеевич' })
  middleName!: string;

  @ApiProperty({ enum: GENDERS, example: 'MALE' })
  gender!: Gender;

  @ApiProperty({ enum: CLIENT_TYPES, example: 'UP' })
  clientType!: ClientType;

  @ApiProperty({ example: false })
  bankruptIndividual!: boolean;

  @ApiProperty({ example: false })
  bankruptEntrepreneur!: boolean;

  @ApiProperty({ example: 'IVAN PETROV' })
  embossingName!: string;

  @ApiProperty({ type: ContactInfoDto })
  contactInfo!: ContactInfoDto;

  @ApiProperty({ type: PassportDataDto })
  passportData!: PassportDataDto;

  @ApiProperty({ type: AddressDto })
  actualAddress!: AddressDto;

  @ApiProperty({ type: AddressDto })
  registrationAddress!: AddressDto;

  @ApiProperty({ type: AccountResponseDto, description: 'Счёт, открытый при регистрации' })
  account!: AccountResponseDto;

  @ApiProperty({ example: 'M_0001' })
  managerPin!: string;

  @ApiProperty({
    description: 'Дата и время регистрации, dd-MM-yyyy HH:mm:ss, бизнес-часовой пояс',
    example: '23-11-2026 15:04:05',
  })
  registrationDate!: string;

  @ApiProperty({
    description: 'Дата и время последнего обновления, dd-MM-yyyy HH:mm:ss, бизнес-часовой пояс',
    example: '23-11-2026 15:04:05',
  })
  actualizationDate!: string;
}
