import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import {
  connectionLostInFlight,
  databaseOutage,
  uniqueViolationConstraint,
} from '@bank/shared/database';
import { DomainError, FieldError, RequestValidationError } from '@bank/shared/errors';
import { MethodNotAllowedError } from '@bank/shared/http';

/**
 * What went wrong, independent of how a service renders it. Every exception that
 * reaches a global filter is first reduced to a Problem, so both error shapes treat
 * the same failures the same way.
 */
export interface Problem {
  status: number;
  /** Stable machine code, e.g. VALIDATION_FAILED, MALFORMED_JSON, ROUTE_NOT_FOUND. */
  code: string;
  /** Message safe to show a client (never a stack, SQL text or driver detail). */
  message: string;
  title?: string;
  fieldErrors?: FieldError[];
  /** Seconds after which a retry may succeed: the filter sends Retry-After. */
  retryAfterSeconds?: number;
  /** The authentication challenge of a 401/403: the filter sends WWW-Authenticate. */
  wwwAuthenticate?: string;

  /** The methods the resource supports (a 405): the filter sends Allow. */
  allow?: string[];
  /** True when the failure was not anticipated and must be logged with its stack. */
  unexpected: boolean;
  /**
   * A failure that repeats for every request while it lasts (the database is out of reach):
   * logged once per kind and interval with a count, not per request (see RateLimitedLog).
   * The kind is the log line's title, e.g. "Database unavailable (connection)".
   */
  outage?: string;
}

interface FrameworkError {
  statusCode?: number;
  code?: string;
  message?: string;
}

/**
 * Maps Fastify's own request errors (raised before a route handler runs) and the connection's
 * (Node's client errors, the shutdown: see libs/shared/http).
 */
const FASTIFY_CODES: Record<string, { status: number; code: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'REQUEST_TIMEOUT',
    message: 'The request did not arrive in time',
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'HEADERS_TOO_LARGE',
    message: 'Request headers are too large',
  },
  CLIENT_ERROR: { status: 400, code: 'BAD_REQUEST', message: 'Malformed HTTP request' },
  // The router's own texts quote the URL; these answers never echo it.
  FST_ERR_BAD_URL: { status: 400, code: 'MALFORMED_URL', message: 'The URL is malformed' },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 414,
    code: 'URI_TOO_LONG',
    message: 'A path parameter is longer than 200 characters',
  },
  SHUTTING_DOWN: {
    status: 503,
    code: 'SHUTTING_DOWN',
    message: 'The service is shutting down; retry on another instance',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: 'MALFORMED_JSON',
    message: 'Request body is not valid JSON',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'MALFORMED_JSON',
    message: 'Request body is empty but declared as JSON',
  },
  BODY_NOT_UTF8: {
    status: 400,
    code: 'BODY_NOT_UTF8',
    message: 'Request body is not valid UTF-8',
  },
  BODY_TOO_COMPLEX: {
    status: 400,
    code: 'BODY_TOO_COMPLEX',
    message: 'Request body has more than 500 fields or nests deeper than 16 levels',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: 'Request body exceeds the 1 MiB limit',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Content type is not supported; send application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'BAD_REQUEST',
    message: 'Content-Length does not match the body',
  },
};

function isUniqueViolation(exception: unknown): boolean {
  return uniqueViolationConstraint(exception) !== undefined;
}

function fromHttpException(exception: HttpException): Problem {
  const status = exception.getStatus();
  const response = exception.getResponse();
  let message = exception.message;
  if (typeof response === 'object' && response !== null && 'message' in response) {
    const raw = response.message;
    message = Array.isArray(raw) ? raw.join('; ') : String(raw);
  }
  if (status === 404 && /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)/.test(message)) {
    return {
      status,
      code: 'ROUTE_NOT_FOUND',
      message: message.replace(/^Cannot/, 'No route for'),
      unexpected: false,
    };
  }
  if (status === 400 && /JSON|Unexpected token|Unexpected end/i.test(message)) {
    return {
      status,
      code: 'MALFORMED_JSON',
      message: 'Request body is not valid JSON',
      unexpected: false,
    };
  }
  if (status === 413) {
    return {
      status,
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Request body exceeds the 1 MiB limit',
      unexpected: false,
    };
  }
  if (status === 429) {
    return {
      status,
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many requests; retry later',
      unexpected: false,
    };
  }
  if (status >= 500) {
    return { status, code: 'INTERNAL_ERROR', message: 'Unexpected error', unexpected: true };
  }
  return { status, code: `HTTP_${status}`, message, unexpected: false };
}

/** Methods whose request may have stored something when its connection was lost. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reduces any thrown value to a Problem. `method` is the request's: a write whose database
 * connection was lost in flight is answered as having an unknown outcome.
 */
export function toProblem(exception: unknown, method?: string): Problem {
  if (exception instanceof RequestValidationError) {
    return {
      status: exception.httpStatus,
      code: exception.code,
      message: exception.message,
      fieldErrors: exception.fieldErrors,
      unexpected: false,
    };
  }
  if (exception instanceof DomainError) {
    return {
      status: exception.httpStatus,
      code: exception.code,
      message: exception.message,
      title: exception.title,
      retryAfterSeconds: exception.retryAfterSeconds,
      wwwAuthenticate: exception.wwwAuthenticate,
      unexpected: false,
    };
  }
  if (exception instanceof MethodNotAllowedError) {
    return {
      status: 405,
      code: exception.code,
      message: exception.message,
      allow: exception.allowed,
      unexpected: false,
    };
  }
  if (exception instanceof HttpException) {
    return fromHttpException(exception);
  }
  if (isUniqueViolation(exception)) {
    return {
      status: 409,
      code: 'UNIQUE_VIOLATION',
      message: 'The resource already exists',
      unexpected: false,
    };
  }
  const outage = databaseOutage(exception);
  if (outage) {
    if (method && WRITE_METHODS.has(method) && connectionLostInFlight(exception)) {
      return {
        status: 503,
        code: 'DATABASE_OUTCOME_UNKNOWN',
        message:
          'The database connection was lost while the change was being written; it may or may ' +
          'not have been stored: retry with the same Idempotency-Key, or without one read the ' +
          'resource first',
        unexpected: false,
        outage,
      };
    }
    return {
      status: 503,
      code: 'DATABASE_UNAVAILABLE',
      message: 'The database is unavailable; retry later',
      unexpected: false,
      outage,
    };
  }
  const framework = exception as FrameworkError | null | undefined;
  if (framework && typeof framework === 'object') {
    const known = framework.code ? FASTIFY_CODES[framework.code] : undefined;
    if (known) {
      return { ...known, unexpected: false };
    }
    if (exception instanceof SyntaxError) {
      return {
        status: 400,
        code: 'MALFORMED_JSON',
        message: 'Request body is not valid JSON',
        unexpected: false,
      };
    }
    const status = framework.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // A framework's text may quote the request (its URL, a header): the reason phrase only.
      return {
        status,
        code: `HTTP_${status}`,
        message: STATUS_CODES[status] ?? 'Bad request',
        unexpected: false,
      };
    }
  }
  return { status: 500, code: 'INTERNAL_ERROR', message: 'Unexpected error', unexpected: true };
}
