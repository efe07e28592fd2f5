import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { REQUEST_ID_PATTERN } from '@bank/shared/identifiers';
import { IsUserId } from '@bank/shared/validation';

export class RequestIdParamDto {
  @ApiProperty({ example: 'RCARDB23112026000001', description: 'RCARDB + ddMMyyyy + 6 digits' })
  @Matches(REQUEST_ID_PATTERN, {
    message: 'must be RCARDB followed by a date ddMMyyyy and 6 digits',
  })
  id!: string;
}

export class ClientIdParamDto {
  @ApiProperty({
    example: 'X1A2B3',
    description: 'User id: X + 5 of A-Z 0-9 (card owner or card holder)',
  })
  @IsUserId()
  clientId!: string;
}
