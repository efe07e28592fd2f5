import { STATUS_CODES } from 'node:http';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Problem } from './problem';

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

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

export function buildCardIssueErrorBody(problem: Problem, timestamp: string): CardIssueErrorBody {
  const body: CardIssueErrorBody = {
    timestamp,
    status: problem.status,
    error: reasonPhrase(problem.status),
    message: problem.message,
  };
  if (problem.fieldErrors) {
    const errors: Record<string, string> = {};
    for (const { path, message } of problem.fieldErrors) {
      errors[path] = errors[path] ? `${errors[path]}; ${message}` : message;
    }
    body.errors = errors;
  }
  return body;
}
