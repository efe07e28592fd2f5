import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import {
  CARD_ISSUE_STATUSES,
  CardIssueStatus,
  FORM_FACTORS,
  FormFactor,
  StatusSource,
} from '../card-issue-status.model';

/** CardIssueResponse (card-issue spec 2.3). */
export class CardIssueResponseDto {
  @ApiProperty({ example: 'RCARDB23112026000001', description: 'RCARDB + ddMMyyyy + 6 digits' })
  requestId!: string;

  @ApiProperty({ enum: CARD_ISSUE_STATUSES, example: 'CREATED' })
  status!: CardIssueStatus;

  @ApiProperty({
    example: 'STSCI01',
    description: 'STSCI01 CREATED, 02 PROCESSING, 03 READY, 04 PLASTIC_READY, 05 FAILED',
  })
  statusCode!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why the request failed; null otherwise',
  })
  failureReason!: string | null;
}

export class StatusChangeDto {
  @ApiProperty({ enum: CARD_ISSUE_STATUSES })
  status!: CardIssueStatus;

  @ApiProperty({ example: 'STSCI01' })
  statusCode!: string;

  @ApiProperty({
    example: '2026-11-23T15:04:05.123',
    description: 'Local date-time of the business time zone',
  })
  at!: string;

  @ApiProperty({ enum: ['api', 'scheduler'] })
  source!: StatusSource;
}

/** The stored record returned by the GET endpoints. */
export class CardIssueRecordDto extends CardIssueResponseDto {
  @ApiProperty({ example: 'X1A2B3' })
  cardOwner!: string;

  @ApiProperty({ enum: FORM_FACTORS })
  formFactor!: FormFactor;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'cardHolder as requested; for a third party also userId, the id the user service gave the new user',
  })
  cardHolder!: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  options!: Record<string, unknown> | null;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  delivery!: Record<string, unknown> | null;

  @ApiProperty({
    example: '2026-11-23T15:04:05.123',
    description: 'Local date-time of the business time zone',
  })
  createdAt!: string;

  @ApiProperty({ example: '2026-11-23T15:04:05.123' })
  updatedAt!: string;

  @ApiProperty({
    type: [StatusChangeDto],
    description: 'Every status the request took, oldest first',
  })
  history!: StatusChangeDto[];
}

/** UpdateStatus (card-issue spec 2.4). */
export class UpdateStatusDto {
  @ApiProperty({ enum: CARD_ISSUE_STATUSES, example: 'PROCESSING' })
  @IsIn(CARD_ISSUE_STATUSES, { message: `must be one of ${CARD_ISSUE_STATUSES.join(', ')}` })
  status!: CardIssueStatus;
}
