import { DomainError } from '@bank/shared/errors';

export class OperationNotFoundError extends DomainError {
  readonly code = 'OPERATION_NOT_FOUND';
  readonly httpStatus = 404;

  constructor(id: string) {
    super(`Operation ${id} not found`);
  }
}

/** A create repeated with the request id of an operation that differs in who or what it is for. */
export class OperationRequestConflictError extends DomainError {
  readonly code = 'OPERATION_REQUEST_CONFLICT';
  readonly httpStatus = 409;

  constructor(requestId: string) {
    super(
      `An operation for request ${requestId} already exists with a different card owner, holder or form factor`,
    );
  }
}
