import { ApiProperty } from '@nestjs/swagger';
import { IsBranchId } from '@bank/shared/validation';

export class BranchDto {
  @ApiProperty({ pattern: '^\\d{4}$', example: '0001' })
  id!: string;

  @ApiProperty({ example: 'Central branch' })
  name!: string;

  @ApiProperty({ example: 'Moscow, Tverskaya st., 1' })
  address!: string;
}

export class BranchIdParams {
  @ApiProperty({ pattern: '^\\d{4}$', example: '0001', description: 'Exactly 4 digits' })
  @IsBranchId()
  id!: string;
}
