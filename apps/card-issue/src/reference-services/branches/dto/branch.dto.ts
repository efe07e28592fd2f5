import { ApiProperty } from '@nestjs/swagger';

export class BranchDto {
  @ApiProperty({ pattern: '^\\d{4}$', example: '0001' })
  id!: string;

  @ApiProperty({ example: 'Central branch' })
  name!: string;

  @ApiProperty({ example: 'Moscow, Tverskaya st., 1' })
  address!: string;
}
