import { DomainError } from '@bank/shared/errors';

export class UserNotFoundError extends DomainError {
  readonly code = 'USER_NOT_FOUND';
  readonly httpStatus = 404;

  constructor(readonly userId: string) {
    super(`User ${userId} not found`);
  }
}

export class UserPassportTakenError extends DomainError {
  readonly code = 'USER_PASSPORT_TAKEN';
  readonly httpStatus = 409;

  constructor(series: string, number: string) {
    super(`A user with passport series ${series} and number ${number} is already registered`);
  }
}

/** Every generated id collided with a stored one: practically impossible below millions of users. */
export class UserIdsExhaustedError extends DomainError {
  readonly code = 'USER_ID_UNAVAILABLE';
  readonly httpStatus = 503;

  constructor() {
    super('No free user id could be found; retry later');
  }
}

/** An Idempotency-Key that already created a user with another passport. */
export class UserIdempotencyKeyReusedError extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  readonly httpStatus = 409;

  constructor() {
    super('This Idempotency-Key already created a user with another passport');
  }
}
