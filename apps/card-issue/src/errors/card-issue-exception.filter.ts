import { STATUS_CODES } from 'node:http';
import { Catch } from '@nestjs/common';
import { CardIssueErrorBody } from './card-issue-error-body.dto';
import { ErrorShapeFilter, Problem } from '@bank/shared/error-shape';

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
    tooManyRequests:
      'More requests from this caller (token subject with AUTH_MODE=jwt, else client address) than RATE_LIMIT per RATE_LIMIT_WINDOW_MS, over all routes (only when RATE_LIMIT is set)',
    payloadTooLarge: 'The request body exceeds 1 MiB',
    unsupportedMediaType: 'The request body is not application/json',
    alsoMalformedJson: 'Also when the body is not valid JSON',
    internalError: 'Unexpected error (logged with the request id; the body names no detail)',
    requestId:
      'The X-Request-Id the request sent (when it is 1-128 characters of A-Z a-z 0-9 . _ : -), else a new UUID; ' +
      'the log lines of the request carry it',
    methodNotAllowed:
      'The path exists but does not support this method; Allow lists the methods it does',
    allow: 'The methods the path supports',
    rateLimitPolicy:
      'The rate limit (IETF draft RateLimit-Policy): q requests per w seconds per caller, the token subject ' +
      'with AUTH_MODE=jwt, else the client address; every route but the health check counts (only when RATE_LIMIT is set)',
    rateLimit:
      "The caller's quota now (IETF draft RateLimit): r requests left, t seconds until it is restored (only when RATE_LIMIT is set)",

    bearerScheme:
      'A JWT from the configured issuer, with the scope each operation lists in x-required-scopes ' +
      '(scope claim, space-separated, or scp). Required only when the service runs with AUTH_MODE=jwt.',
    unauthorized:
      'AUTH_MODE=jwt: no bearer token, or a token that does not verify (signature, issuer, audience, expiry)',
    wwwAuthenticate: 'Bearer challenge (RFC 6750) with error and error_description or scope',
    forbidden: 'AUTH_MODE=jwt: the token lacks the scope',
    alsoForbidden: 'Also (AUTH_MODE=jwt) when the token lacks the scope',
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
      // Own keys only: a path named like an Object.prototype member (toString) is no message yet.
      errors[path] = Object.hasOwn(errors, path) ? `${errors[path]}; ${message}` : message;
    }
    body.errors = errors;
  }
  return body;
}
