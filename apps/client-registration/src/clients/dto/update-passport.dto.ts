import { ApiProperty } from '@nestjs/swagger';
import { RequiredObject } from './field.decorators';
import { PassportDataDto } from './passport-data.dto';

/** Body of PUT /api/clients/{id}/passport: the new passport, validated as at registration. */
export class UpdatePassportDto {
  @ApiProperty({ description: 'Новые паспортные данные', type: PassportDataDto })
  @RequiredObject(() => PassportDataDto)
  passportData!: PassportDataDto;
}
