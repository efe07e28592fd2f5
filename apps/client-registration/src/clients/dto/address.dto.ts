import { ApiProperty } from '@nestjs/swagger';
import { RequiredText } from './field.decorators';

export class AddressDto {
  @ApiProperty({ description: 'Страна', maxLength: 50, example: 'Россия' })
  @RequiredText(50)
  country!: string;

  @ApiProperty({ description: 'Регион', maxLength: 50, example: 'Московская область' })
  @RequiredText(50)
  region!: string;

  @ApiProperty({ description: 'Город', maxLength: 120, example: 'Химки' })
  @RequiredText(120)
  city!: string;

  @ApiProperty({ description: 'Улица', maxLength: 120, example: 'ул. Ленина' })
  @RequiredText(120)
  street!: string;

  @ApiProperty({ description: 'Дом', maxLength: 20, example: '10к2' })
  @RequiredText(20)
  building!: string;

  @ApiProperty({ description: 'Квартира', maxLength: 20, example: '45' })
  @RequiredText(20)
  apartment!: string;
}
