import { EventEmitter } from 'node:events';

/** What a redacted value is written as. */
export const REDACTED = '[REDACTED]';

/**
 * Keys whose values may hold personal data or secrets, at any depth of a log line: the
 * X-secret and credentials of a request's headers, a person's passport and contact details
 * (the spec's DTOs and entities), and the passport's series and number.
 */
export const REDACTED_LOG_KEYS: ReadonlySet<string> = new Set([
  'x-secret',
  'authorization',
  'cookie',
  'passportData',
  'contactInfo',
  'phone',
  'phoneNumber',
  'email',
  'series',
  'number',
]);

/** How deep a line is searched (a DTO's contact info sits 3-4 levels down; cycles stop here). */
const MAX_DEPTH = 8;

/**
 * Values not searched: an error is written by the `err` serializer, which keeps only fields that
 * cannot hold personal data (logSafeError); the others either serialize to no keys (a Map, a
 * Set) or are never logged as such (requests, sockets and streams are emitters).
 */
function opaque(value: object): boolean {
  return (
    value instanceof Error ||
    value instanceof Date ||
    ArrayBuffer.isView(value) ||
    value instanceof Map ||
    value instanceof Set ||
    value instanceof EventEmitter ||
    value instanceof Promise
  );
}

const NOTHING_SKIPPED: ReadonlySet<string> = new Set();

function redactValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || opaque(value))
    return value;
  if (!Array.isArray(value))
    return redactObject(value as Record<string, unknown>, depth, NOTHING_SKIPPED);
  let copy: unknown[] | null = null;
  for (let i = 0; i < value.length; i++) {
    const redacted = redactValue(value[i], depth + 1);
    if (redacted !== value[i]) (copy ??= value.slice())[i] = redacted;
  }
  return copy ?? value;
}

function redactObject(
  source: Record<string, unknown>,
  depth: number,
  skipped: ReadonlySet<string>,
): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(source)) {
    if (skipped.has(key)) continue;
    const item = source[key];
    const redacted =
      REDACTED_LOG_KEYS.has(key) && item !== undefined ? REDACTED : redactValue(item, depth + 1);
    if (redacted !== item) (copy ??= { ...source })[key] = redacted;
  }
  return copy ?? source;
}

/**
 * The object of a log line with the value of every REDACTED_LOG_KEYS key, at any depth, replaced
 * by REDACTED. Copies only what it changes: a line with nothing to redact is returned as it is,
 * and an object without such a key keeps its identity (and its toJSON). Keys in `serialized` are
 * left to their serializer (pino runs it after this), which writes only safe fields.
 */
export function redactLogLine(
  line: Record<string, unknown>,
  serialized: ReadonlySet<string>,
): Record<string, unknown> {
  return redactObject(line, 0, serialized);
}
