import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { FieldError, RequestValidationError } from '@bank/shared/errors';

/** NUL, or a UTF-16 surrogate without its partner: text PostgreSQL cannot store (text or jsonb). */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSAFE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const UNSAFE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * Keys no DTO has and that object machinery treats specially, refused like any unknown field:
 * class-transformer follows `constructor`, `__proto__` pollutes prototypes, and a key naming an
 * Object.prototype member (`toString`, `valueOf`, `hasOwnProperty`, `__defineGetter__`, ...)
 * is skipped by class-transformer (the instance already "has" it), so the whitelist never saw
 * it and the field was silently dropped instead of refused.
 */
const RESERVED_KEYS = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  'constructor',
  'prototype',
]);

/** Deeper than any request of these services; deeper JSON would overflow recursive validation. */
const MAX_BODY_DEPTH = 32;

/**
 * Every string (values and keys) under `value` that PostgreSQL could not store, and every
 * reserved key, by path.
 */
export function findUnsafeText(value: unknown, path: string, depth = 0): FieldError[] {
  if (depth > MAX_BODY_DEPTH && value !== null && typeof value === 'object') {
    return [{ path: path || '(body)', message: `is nested deeper than ${MAX_BODY_DEPTH} levels` }];
  }
  if (typeof value === 'string')
    return UNSAFE_TEXT.test(value) ? [{ path, message: UNSAFE_TEXT_MESSAGE }] : [];
  if (Array.isArray(value))
    return value.flatMap((item, i) => findUnsafeText(item, `${path}[${i}]`, depth + 1));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      const child = path ? `${path}.${key}` : key;
      if (RESERVED_KEYS.has(key))
        return [{ path: child, message: `property ${key} should not exist` }];
      return UNSAFE_TEXT.test(key)
        ? [{ path: child, message: UNSAFE_TEXT_MESSAGE }]
        : findUnsafeText(item, child, depth + 1);
    });
  }
  return [];
}

/**
 * Runs before validation on every body, path parameter and query: such text would otherwise
 * reach PostgreSQL and fail there (500), and such keys would reach class-transformer, instead
 * of being refused (400).
 */
@Injectable()
export class TextSafetyPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const root = metadata.type === 'body' ? '' : (metadata.data ?? '');
    const errors = findUnsafeText(value, root);
    if (errors.length) throw new RequestValidationError(errors);
    return value;
  }
}
