import { ApiProperty } from '@nestjs/swagger';
import { IsBranchId } from '@bank/shared/validation';

export class BranchIdParams {
  @ApiProperty({ pattern: '^\\d{4}$', example: '0001', description: 'Exactly 4 digits' })
  @IsBranchId()
  id!: string;
}
