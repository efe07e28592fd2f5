import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Error body of the card-issue deployment (card-issue spec part 7). */
export class CardIssueErrorBody {
  @ApiProperty({
    example: '2026-11-23T12:30:00.123',
    description: 'Local date-time of the business time zone, without zone',
  })
  timestamp!: string;

  @ApiProperty({ example: 400, description: 'Equals the HTTP status' })
  status!: number;

  @ApiProperty({ example: 'Bad Request', description: 'Reason phrase of the status' })
  error!: string;

  @ApiProperty({ example: 'Validation failed' })
  message!: string;

  @ApiPropertyOptional({
    description: 'Only for validation failures: full field path from the body root to a message',
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'request.cardHolder.user.contactInfo.phone': 'must be 11 digits starting with 7' },
  })
  errors?: Record<string, string>;
}
