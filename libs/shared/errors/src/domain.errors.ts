/**
 * Base of every error a service raises on purpose. Services throw these (never
 * `HttpException`); the global exception filter of each service maps them to the
 * service's error body. `code` is stable and safe to match on; `httpStatus` is the
 * status the filter answers with.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  abstract readonly httpStatus: number;
  /** A short human title; the registration service shows it as `error`. */
  readonly title?: string;
  /** Seconds after which a retry may succeed: sent as Retry-After. */
  readonly retryAfterSeconds?: number;
  /** The authentication challenge of a 401 or 403: sent as WWW-Authenticate (RFC 6750). */
  readonly wwwAuthenticate?: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** One violated field, by its full path from the body root (e.g. `request.cardHolder.userId`). */
export interface FieldError {
  path: string;
  message: string;
}

/** The body failed validation; carries every violated field at once. */
export class RequestValidationError extends DomainError {
  readonly code = 'VALIDATION_FAILED';
  readonly httpStatus = 400;

  constructor(
    readonly fieldErrors: FieldError[],
    message = 'Validation failed',
  ) {
    super(message);
  }
}
