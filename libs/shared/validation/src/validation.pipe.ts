import { ValidationPipe } from '@nestjs/common';
import { ValidationError } from 'class-validator';
import { FieldError, RequestValidationError } from '@bank/shared/errors';

/** Path used when the body itself (not one of its fields) is wrong, e.g. an array or a number. */
const BODY_PATH = '(body)';

/**
 * Flattens class-validator's tree into one entry per violated field, keyed by the full
 * path from the body root (`request.cardHolder.user.contactInfo.phone`).
 */
export function flattenValidationErrors(errors: ValidationError[], parentPath = ''): FieldError[] {
  const result: FieldError[] = [];
  for (const error of errors) {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property || BODY_PATH;
    if (error.constraints) {
      // A value can break several constraints whose messages coincide (type and format of an id).
      const messages = [...new Set(Object.values(error.constraints))];
      result.push({ path, message: messages.join('; ') });
    }
    if (error.children?.length) {
      result.push(...flattenValidationErrors(error.children, path));
    }
  }
  return result;
}

/** Strict global pipe: unknown fields rejected, no implicit type conversion, every violation reported. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new RequestValidationError(flattenValidationErrors(errors)),
  });
}
