import { DomainError } from '@bank/shared/errors';

export class BranchNotFoundError extends DomainError {
  readonly code = 'BRANCH_NOT_FOUND';
  readonly httpStatus = 404;

  constructor(id: string) {
    super(`Branch ${id} not found`);
  }
}
