import { DomainError } from '@bank/shared/errors';

/** A well-formed managerPin that belongs to none of the known managers (spec part 7). */
export class ManagerNotFoundError extends DomainError {
  readonly code = 'MANAGER_NOT_FOUND';
  readonly httpStatus = 400;
  override readonly title = 'Менеджер не найден';

  constructor(readonly pin: string) {
    super(`Менеджер с PIN ${pin} не найден`);
  }
}
