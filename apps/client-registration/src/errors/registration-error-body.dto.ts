import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Error body of the client registration service (registration spec part 7), in Russian. */
export class RegistrationErrorBody {
  @ApiProperty({
    example: '2026-11-23T12:30:00.123',
    description: 'Локальные дата и время бизнес-часового пояса, без зоны',
  })
  timestamp!: string;

  @ApiProperty({ example: 400, description: 'Совпадает с HTTP-статусом' })
  status!: number;

  @ApiProperty({ example: 'Ошибка валидации', description: 'Краткий заголовок ошибки' })
  error!: string;

  @ApiProperty({ example: 'Запрос содержит некорректные данные' })
  message!: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Только для ошибок валидации: «путь.поля: сообщение»',
    example: ['contactInfo.phone: должен состоять из 11 цифр и начинаться с 7'],
  })
  details?: string[];
}
