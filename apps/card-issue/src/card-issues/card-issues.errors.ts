import { DomainError } from '@bank/shared/errors';
import { REQUEST_IDS_PER_DAY } from '@bank/shared/identifiers';
import type { CardIssueStatus, FormFactor } from './card-issue-status.model';

export class CardIssueNotFoundError extends DomainError {
  readonly code = 'CARD_ISSUE_NOT_FOUND';
  readonly httpStatus = 404;

  constructor(readonly requestId: string) {
    super(`Card issue request ${requestId} not found`);
  }
}

export class StatusNotAllowedError extends DomainError {
  readonly code = 'STATUS_NOT_ALLOWED';
  readonly httpStatus = 409;

  constructor(status: CardIssueStatus, formFactor: FormFactor) {
    super(
      `Status ${status} is not allowed for a ${formFactor} card: READY is only for VIRTUAL, PLASTIC_READY only for PLASTIC`,
    );
  }
}

/**
 * A downstream service is down or too slow: nothing was stored, the caller may retry after
 * Retry-After (the service's own, the breaker's cool-down, or one second).
 */
export class DownstreamUnavailableError extends DomainError {
  readonly code = 'DOWNSTREAM_UNAVAILABLE';
  readonly httpStatus = 503;
  override readonly retryAfterSeconds: number;

  constructor(
    readonly service: string,
    retryAfterMs?: number,
  ) {
    super(`The ${service} is unavailable; the request was not stored, retry later`);
    this.retryAfterSeconds = Math.max(1, Math.ceil((retryAfterMs ?? 0) / 1_000));
  }
}

/**
 * The holder user an earlier attempt of this request created is being deleted as abandoned
 * (HolderSweeper); the retry after Retry-After creates it anew.
 */
export class HolderCleanupInProgressError extends DomainError {
  readonly code = 'HOLDER_CLEANUP_IN_PROGRESS';
  readonly httpStatus = 503;

  constructor() {
    super(
      'The card holder created by an earlier attempt of this request is being cleaned up; nothing was stored, retry later',
    );
  }
}

export class RequestIdsExhaustedError extends DomainError {
  readonly code = 'REQUEST_IDS_EXHAUSTED';
  readonly httpStatus = 503;

  constructor(businessDay: string) {
    super(
      `All ${REQUEST_IDS_PER_DAY.toLocaleString('en-US')} request ids of business day ${businessDay} are used; retry on the next business day`,
    );
  }
}

export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  readonly httpStatus = 409;

  constructor() {
    super('This Idempotency-Key was already used with a different request body');
  }
}

/** A parallel request holds the key (or took it over from this one); Retry-After says when to look again. */
export class IdempotencyKeyInProgressError extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_IN_PROGRESS';
  readonly httpStatus = 409;

  constructor(override readonly retryAfterSeconds: number) {
    super('A request with this Idempotency-Key is still being processed; retry shortly');
  }
}
