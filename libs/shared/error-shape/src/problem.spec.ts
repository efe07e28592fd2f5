import { HttpException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { DomainError, RequestValidationError } from '@bank/shared/errors';
import { MethodNotAllowedError } from '@bank/shared/http';
import { toProblem } from './problem';

class GoneError extends DomainError {
  readonly code = 'THING_GONE';
  readonly httpStatus = 410;
  override readonly title = 'Gone';
  override readonly retryAfterSeconds = 7;
}

const driverError = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('toProblem', () => {
  it('keeps a domain error: status, code, message, title, Retry-After', () => {
    expect(toProblem(new GoneError('Thing 42 is gone'))).toEqual({
      status: 410,
      code: 'THING_GONE',
      message: 'Thing 42 is gone',
      title: 'Gone',
      retryAfterSeconds: 7,
      wwwAuthenticate: undefined,
      unexpected: false,
    });
  });

  it('keeps every field error of a validation failure', () => {
    const fieldErrors = [{ path: 'inner.code', message: 'too long' }];
    expect(toProblem(new RequestValidationError(fieldErrors))).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      fieldErrors,
    });
  });

  it('answers a method the resource lacks 405 with the ones it has', () => {
    expect(toProblem(new MethodNotAllowedError('PUT', ['GET', 'HEAD']))).toMatchObject({
      status: 405,
      allow: ['GET', 'HEAD'],
    });
  });

  it("names Nest's unknown route, the rate limit and Fastify's own errors without echoing them", () => {
    expect(toProblem(new HttpException('Cannot GET /nowhere', 404))).toMatchObject({
      status: 404,
      code: 'ROUTE_NOT_FOUND',
      message: 'No route for GET /nowhere',
    });
    expect(toProblem(new HttpException('Too Many Requests', 429))).toEqual({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many requests; retry later',
      unexpected: false,
    });
    expect(toProblem({ code: 'FST_ERR_BAD_URL', message: "'/%E0' is not a valid url" })).toEqual({
      status: 400,
      code: 'MALFORMED_URL',
      message: 'The URL is malformed',
      unexpected: false,
    });
    expect(toProblem({ statusCode: 410, message: 'GET /secret?token=x' })).toMatchObject({
      status: 410,
      code: 'HTTP_410',
      message: 'Gone',
    });
  });

  it('answers a unique violation 409 without SQL, and the database out of reach 503 as an outage', () => {
    const unique = new QueryFailedError(
      'INSERT INTO secret_table VALUES ($1)',
      ['x'],
      driverError('duplicate key value violates unique constraint "uq_x"', '23505'),
    );
    expect(toProblem(unique)).toEqual({
      status: 409,
      code: 'UNIQUE_VIOLATION',
      message: 'The resource already exists',
      unexpected: false,
    });
    const down = new QueryFailedError(
      'SELECT 1',
      [],
      driverError('terminating connection due to administrator command', '57P01'),
    );
    expect(toProblem(down)).toMatchObject({
      status: 503,
      code: 'DATABASE_UNAVAILABLE',
      outage: 'Database unavailable (connection)',
      unexpected: false,
    });
  });

  it('answers a write whose connection was lost in flight 503 with an unknown outcome', () => {
    const lost = new QueryFailedError(
      'COMMIT',
      [],
      driverError('terminating connection due to administrator command', '57P01'),
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const readOnly = new QueryFailedError(
      'INSERT INTO t VALUES (1)',
      [],
      driverError('cannot execute INSERT in a read-only transaction', '25006'),
    );
    const codeOf = (exception: unknown, method?: string) => {
      const problem = toProblem(exception, method);
      return `${problem.status} ${problem.code}`;
    };
    expect(
      ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', undefined].map((method) => codeOf(lost, method)),
    ).toEqual([
      ...Array<string>(4).fill('503 DATABASE_OUTCOME_UNKNOWN'),
      '503 DATABASE_UNAVAILABLE',
      '503 DATABASE_UNAVAILABLE',
    ]);
    expect([codeOf(refused, 'POST'), codeOf(readOnly, 'POST')]).toEqual([
      '503 DATABASE_UNAVAILABLE',
      '503 DATABASE_UNAVAILABLE',
    ]);
    expect(toProblem(lost, 'POST')).toMatchObject({
      message: expect.stringMatching(/may or may not have been stored.*same Idempotency-Key/),
      outage: 'Database unavailable (connection)',
      unexpected: false,
    });
  });

  it('answers anything else a bare 500, to be logged as unexpected', () => {
    expect(toProblem(new Error('SELECT password FROM users'))).toEqual({
      status: 500,
      code: 'INTERNAL_ERROR',
      message: 'Unexpected error',
      unexpected: true,
    });
  });
});
