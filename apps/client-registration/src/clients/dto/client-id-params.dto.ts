import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { UUID_PATTERN } from '@bank/shared/identifiers';
import { ru } from './field.decorators';

/** Path parameters of /api/clients/{id}: a malformed id is a 400 validation error. */
export class ClientIdParamsDto {
  @ApiProperty({
    description: 'Идентификатор клиента (UUID)',
    format: 'uuid',
    example: '3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21',
  })
  @Matches(UUID_PATTERN, { message: ru('должен быть UUID') })
  id!: string;
}
