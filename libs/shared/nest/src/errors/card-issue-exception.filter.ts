import { STATUS_CODES } from 'node:http';
import { Catch } from '@nestjs/common';
import { CardIssueErrorBody } from './card-issue-error-body.dto';
import { ErrorShapeFilter } from './error-shape.filter';
import { Problem } from './problem';

/** Renders every failure as the card-issue error body: the status's reason phrase, field errors by full path. */
@Catch()
export class CardIssueExceptionFilter extends ErrorShapeFilter {
  readonly bodyType = CardIssueErrorBody;
  readonly openApiTexts = {
    unavailable:
      'The database is unavailable, or the service is shutting down; retry after Retry-After',
    alsoUnavailable: 'Also when the database is unavailable or the service is shutting down',
    retryAfter: 'Seconds to wait before retrying',
    requestTimeout: 'The request (headers and body) did not arrive in time',
  };

  protected render(problem: Problem, timestamp: string): CardIssueErrorBody {
    return buildCardIssueErrorBody(problem, timestamp);
  }
}

function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

function buildCardIssueErrorBody(problem: Problem, timestamp: string): CardIssueErrorBody {
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
