import { LocalDate, formatDdMmYyyy } from '@bank/shared/calendar';
import { DomainError } from '@bank/shared/errors';

/**
 * Errors of the clients feature. The domain errors reach the client, with Russian titles and
 * messages (registration spec part 7); AccountNumberTakenError stays inside the service.
 */

export class ClientNotFoundError extends DomainError {
  readonly code = 'CLIENT_NOT_FOUND';
  readonly httpStatus = 404;
  override readonly title = 'Клиент не найден';

  constructor(readonly clientId: string) {
    super(`Клиент с id ${clientId} не найден`);
  }
}

/** Under 18 on the business date (spec 2.4): 403. */
export class ClientUnderageError extends DomainError {
  readonly code = 'CLIENT_UNDERAGE';
  readonly httpStatus = 403;
  override readonly title: string;

  constructor(
    readonly age: number,
    adultOn: LocalDate,
    operation: 'registration' | 'passport-update',
  ) {
    super(
      `Клиенту ${age} ${yearsWord(age)}, минимальный возраст клиента — 18 лет ` +
        `(18 лет исполнится ${formatDdMmYyyy(adultOn)})`,
    );
    this.title =
      operation === 'registration' ? 'Отказ в регистрации' : 'Отказ в обновлении паспортных данных';
  }
}

/** Passport issued before the 20th / 45th birthday and the grace month is over (spec 2.4): 400. */
export class PassportOutdatedError extends DomainError {
  readonly code = 'PASSPORT_OUTDATED';
  readonly httpStatus = 400;
  override readonly title = 'Ошибка проверки паспорта';

  constructor(replacementAge: number, lastGraceDay: LocalDate) {
    super(
      `Требуется обновлённый паспорт: паспорт выдан до достижения клиентом ${replacementAge} лет, ` +
        `срок его замены истёк ${formatDdMmYyyy(lastGraceDay)}`,
    );
  }
}

/** Another client already holds this passport (unique constraint): 409. */
export class PassportAlreadyRegisteredError extends DomainError {
  readonly code = 'PASSPORT_ALREADY_REGISTERED';
  readonly httpStatus = 409;
  override readonly title = 'Клиент уже зарегистрирован';

  constructor(series: string, number: string) {
    super(`Клиент с паспортом серии ${series} номер ${number} уже зарегистрирован`);
  }
}

/** Account number generation kept colliding; practically unreachable with 10^12 numbers. */
export class AccountNumberExhaustedError extends DomainError {
  readonly code = 'ACCOUNT_NUMBER_UNAVAILABLE';
  readonly httpStatus = 503;
  override readonly title = 'Сервис недоступен';

  constructor(attempts: number) {
    super(`Не удалось подобрать свободный номер счёта за ${attempts} попыток, повторите запрос`);
  }
}

/**
 * The generated account number is already taken; the service draws another one. Never
 * reaches a client: a plain Error between repository and service, not a DomainError.
 */
export class AccountNumberTakenError extends Error {
  constructor(readonly accountNumber: string) {
    super('Account number already taken');
    this.name = AccountNumberTakenError.name;
  }
}

function yearsWord(n: number): string {
  const lastTwo = n % 100;
  const last = n % 10;
  if (lastTwo >= 11 && lastTwo <= 14) return 'лет';
  if (last === 1) return 'год';
  if (last >= 2 && last <= 4) return 'года';
  return 'лет';
}

/** The Idempotency-Key was already used with another body: 409. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  readonly httpStatus = 409;
  override readonly title = 'Конфликт ключа идемпотентности';

  constructor() {
    super('Этот Idempotency-Key уже использован с другим телом запроса');
  }
}

/** A request with this Idempotency-Key is still running: 409 with Retry-After. */
export class IdempotencyKeyInProgressError extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_IN_PROGRESS';
  readonly httpStatus = 409;
  override readonly title = 'Запрос ещё обрабатывается';

  constructor(override readonly retryAfterSeconds: number) {
    super('Запрос с этим Idempotency-Key ещё обрабатывается, повторите его позже');
  }
}
