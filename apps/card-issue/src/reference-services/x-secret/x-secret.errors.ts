import { DomainError } from '@bank/shared/errors';

export class InvalidXSecretError extends DomainError {
  readonly code = 'X_SECRET_INVALID';
  readonly httpStatus = 403;

  constructor() {
    super('X-secret header is invalid or missing');
  }
}
