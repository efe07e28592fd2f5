import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Matches, Max, Min, ValidateIf } from 'class-validator';
import { REQUEST_ID_PATTERN } from '@bank/shared/identifiers';
import { IsUserId } from '@bank/shared/validation';

const FORM_FACTORS = ['VIRTUAL', 'PLASTIC'] as const;
const OPERATION_STATUSES = ['CREATED', 'PROCESSING', 'READY', 'PLASTIC_READY', 'FAILED'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];
export type FormFactor = (typeof FORM_FACTORS)[number];

export class CreateOperationDto {
  @ApiProperty({
    example: 'RCARDB23112026000042',
    description: 'Card issue request id; one operation per request (a repeated create returns it)',
  })
  @Matches(REQUEST_ID_PATTERN, { message: 'must be RCARDB + ddMMyyyy + 6 digits' })
  requestId!: string;

  @ApiProperty({ example: 'X1A2B3', description: 'User id of the card owner' })
  @IsUserId()
  cardOwner!: string;

  @ApiProperty({
    example: 'X4C5D6',
    nullable: true,
    required: false,
    type: String,
    description: 'User id of the card holder; null for a nameless card',
  })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsUserId()
  holderUserId?: string | null;

  @ApiProperty({ enum: FORM_FACTORS, example: 'VIRTUAL' })
  @IsIn(FORM_FACTORS, { message: `must be one of ${FORM_FACTORS.join(', ')}` })
  formFactor!: FormFactor;

  @ApiProperty({
    enum: OPERATION_STATUSES,
    example: 'CREATED',
    required: false,
    default: 'CREATED',
  })
  @IsOptional()
  @IsIn(OPERATION_STATUSES, { message: `must be one of ${OPERATION_STATUSES.join(', ')}` })
  status?: OperationStatus;
}

export class UpdateOperationStatusDto {
  @ApiProperty({ enum: OPERATION_STATUSES, example: 'PROCESSING' })
  @IsIn(OPERATION_STATUSES, { message: `must be one of ${OPERATION_STATUSES.join(', ')}` })
  status!: OperationStatus;

  @ApiProperty({
    required: false,
    minimum: 1,
    example: 3,
    description:
      "Position of this update in the sender's order. When given and not greater than the last " +
      'applied one, the update is ignored (redelivery or out-of-order delivery) and the stored ' +
      'operation is returned unchanged.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  sequence?: number;
}

export class OperationDto {
  @ApiProperty({ format: 'uuid', example: '3f0e4a52-8f3e-4c55-a0a4-2b8d3c1f9e77' })
  id!: string;

  @ApiProperty({ example: 'RCARDB23112026000042' })
  requestId!: string;

  @ApiProperty({ example: 'X1A2B3' })
  cardOwner!: string;

  @ApiProperty({ example: 'X4C5D6', nullable: true, type: String })
  holderUserId!: string | null;

  @ApiProperty({ enum: FORM_FACTORS, example: 'VIRTUAL' })
  formFactor!: FormFactor;

  @ApiProperty({ enum: OPERATION_STATUSES, example: 'CREATED' })
  status!: OperationStatus;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T09:30:00.000Z' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T09:31:00.000Z' })
  updatedAt!: string;
}
