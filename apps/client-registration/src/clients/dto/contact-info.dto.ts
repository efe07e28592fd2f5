import { ApiProperty } from '@nestjs/swagger';
import { IsPhone } from '@bank/shared/validation';
import { RequiredEmail, ru } from './field.decorators';

export class ContactInfoDto {
  @ApiProperty({
    description: 'Телефон: 11 цифр, начинается с 7',
    pattern: '^7\\d{10}$',
    example: '79161234567',
  })
  @IsPhone({ message: ru('должен состоять из 11 цифр и начинаться с 7') })
  phone!: string;

  @ApiProperty({
    description: 'Адрес электронной почты, не длиннее 50 символов',
    maxLength: 50,
    format: 'email',
    example: 'ivan.petrov@example.ru',
  })
  @RequiredEmail(50)
  email!: string;
}
