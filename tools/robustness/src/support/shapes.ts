import { HttpResult } from './http';

export type ErrorShape = 'card-issue' | 'registration';

/** Local date-time without zone, as both error bodies carry it. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?$/;
const CYRILLIC = /[А-Яа-яЁё]/;

/** What must never reach a client: stack frames, SQL text, driver or framework internals. */
const LEAKS: [string, RegExp][] = [
  ['stack frame', /\n\s+at |at [\w.<>]+ \(\/|\.ts:\d+:\d+|node_modules/],
  ['SQL text', /\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b/i],
  [
    'driver error',
    /QueryFailedError|duplicate key value|violates (unique|check|foreign key)|relation "|syntax error at or near|invalid input syntax|TypeError|ReferenceError|Cannot read propert/i,
  ],
  ['framework code', /FST_ERR_|ERR_[A-Z_]{4,}/],
];

export function leaksOf(text: string): string[] {
  return LEAKS.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
}

/**
 * Why a response is not a proper error body of the service, or null when it is. Card-issue:
 * {timestamp, status, error, message, errors?} with errors a map of field path -> message;
 * registration: the same with Russian error/message and details?: string[].
 */
export function errorShapeProblem(res: HttpResult, shape: ErrorShape): string | null {
  const body = res.body;
  if (!(res.headers['content-type'] ?? '').startsWith('application/json')) {
    return `content-type ${res.headers['content-type']}`;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'body is not a JSON object';
  const b = body as Record<string, unknown>;
  const optional = shape === 'card-issue' ? 'errors' : 'details';
  const extra = Object.keys(b).filter(
    (k) => !['timestamp', 'status', 'error', 'message', optional].includes(k),
  );
  if (extra.length) return `unexpected keys ${extra.join(', ')}`;
  if (typeof b.timestamp !== 'string' || !TIMESTAMP.test(b.timestamp)) return 'timestamp';
  if (b.status !== res.status) return `status ${String(b.status)} != HTTP ${res.status}`;
  if (typeof b.error !== 'string' || !b.error) return 'error';
  if (typeof b.message !== 'string' || !b.message) return 'message';
  if (shape === 'card-issue') {
    if (b.errors !== undefined) {
      if (!b.errors || typeof b.errors !== 'object' || Array.isArray(b.errors))
        return 'errors is not a map';
      if (!Object.values(b.errors).every((v) => typeof v === 'string')) return 'errors values';
    }
  } else {
    if (!CYRILLIC.test(b.error) || !CYRILLIC.test(b.message)) return 'error/message not in Russian';
    if (b.details !== undefined) {
      if (!Array.isArray(b.details) || !b.details.every((d) => typeof d === 'string'))
        return 'details';
    }
  }
  const leaks = leaksOf(res.text);
  if (leaks.length) return `leaks ${leaks.join(', ')}`;
  return null;
}

/** Throws (with the response) unless it is a 4xx in the service's error shape. */
export function assertClientError(
  res: HttpResult,
  shape: ErrorShape,
  context: unknown = undefined,
): void {
  const problem =
    res.status >= 400 && res.status < 500
      ? errorShapeProblem(res, shape)
      : `status ${res.status} is not a 4xx`;
  if (problem) {
    throw new Error(
      `not a ${shape} 4xx error (${problem}): ${res.status} ${res.text.slice(0, 600)}` +
        (context === undefined ? '' : `\nrequest: ${JSON.stringify(context)?.slice(0, 600)}`),
    );
  }
}

/** Throws unless the response is no 5xx and, if it is an error, has the service's shape. */
export function assertNoServerError(
  res: HttpResult,
  shape: ErrorShape,
  context: unknown = undefined,
): void {
  if (res.status >= 500 || res.status < 200) {
    throw new Error(
      `server error ${res.status}: ${res.text.slice(0, 600)}\nrequest: ${JSON.stringify(context)?.slice(0, 600)}`,
    );
  }
  // (2xx bodies echo stored client data, which may be anything the fuzzer sent.)
  if (res.status >= 400) assertClientError(res, shape, context);
}

/** What says "unavailable, retry" in an answer: status, Retry-After, error shape and message. */
export function unavailableAnswer(res: HttpResult, shape: ErrorShape) {
  return {
    status: res.status,
    retryAfter: res.headers['retry-after'],
    problem: errorShapeProblem(res, shape),
    message: (res.body as { message?: string }).message,
  };
}

/** unavailableAnswer of a 503 with Retry-After, a proper error body, and `message`. */
export function expectedUnavailable(message: string | RegExp) {
  return {
    status: 503,
    // Jest's asymmetric matchers are typed any.
    retryAfter: expect.stringMatching(/^\d+$/) as unknown,
    problem: null,
    message: typeof message === 'string' ? message : (expect.stringMatching(message) as unknown),
  };
}
