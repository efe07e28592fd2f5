import { ApiProperty } from '@nestjs/swagger';
import { IsPassportNumber, IsPassportSeries } from '@bank/shared/validation';
import { PassportBirthDate, PassportIssueDate, RequiredText, ru } from './field.decorators';

export class PassportDataDto {
  @ApiProperty({
    description:
      'Дата рождения, dd-MM-yyyy; реальная дата, не позже текущей бизнес-даты и не раньше 01-01-1900',
    pattern: '^\\d{2}-\\d{2}-\\d{4}$',
    example: '15-03-1990',
  })
  @PassportBirthDate()
  birthDate!: string;

  @ApiProperty({ description: 'Место рождения', maxLength: 120, example: 'г. Москва' })
  @RequiredText(120)
  birthPlace!: string;

  @ApiProperty({
    description:
      'Дата выдачи паспорта, dd-MM-yyyy; реальная дата, не позже текущей бизнес-даты и не раньше даты рождения',
    pattern: '^\\d{2}-\\d{2}-\\d{4}$',
    example: '20-03-2010',
  })
  @PassportIssueDate('birthDate')
  issueDate!: string;

  @ApiProperty({
    description: 'Серия паспорта: ровно 4 цифры',
    pattern: '^\\d{4}$',
    example: '4510',
  })
  @IsPassportSeries({ message: ru('должна состоять ровно из 4 цифр') })
  series!: string;

  @ApiProperty({
    description: 'Номер паспорта: ровно 6 цифр',
    pattern: '^\\d{6}$',
    example: '123456',
  })
  @IsPassportNumber({ message: ru('должен состоять ровно из 6 цифр') })
  number!: string;
}
