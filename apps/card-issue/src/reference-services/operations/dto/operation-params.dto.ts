import { ApiProperty } from '@nestjs/swagger';
import { IsUserId } from '@bank/shared/validation';

export class CardOwnerParams {
  @ApiProperty({ example: 'X1A2B3', description: 'User id of the card owner' })
  @IsUserId()
  cardOwner!: string;
}

export class HolderParams {
  @ApiProperty({ example: 'X4C5D6', description: 'User id of the card holder' })
  @IsUserId()
  userId!: string;
}
