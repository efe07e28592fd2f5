import { ArgumentsHost, Catch, ExceptionFilter, Logger, Type } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Clock, formatLocalDateTime } from '@bank/shared/calendar';
import { logSafeMessage, RateLimitedLog } from '@bank/shared/logging';
import { Problem, toProblem } from './problem';
import type { PlatformAnswers } from '@bank/shared/openapi';

/** How a filter answers and logs failures that are not the client's (set from the environment). */
export interface ErrorShapeSettings {
  /** Retry-After (seconds) on every 503. */
  retryAfterSeconds: number;
  /** An outage (e.g. the database out of reach) is logged once per kind per this interval. */
  outageLogIntervalMs: number;
}

export const DEFAULT_ERROR_SHAPE_SETTINGS: ErrorShapeSettings = {
  retryAfterSeconds: 5,
  outageLogIntervalMs: 10_000,
};

/**
 * The one global filter of a service: every exception, including the framework's own
 * (malformed JSON, 404 routes, 413 bodies) becomes the service's error body. Unexpected
 * errors are logged with their stack and answered with a generic 500; an outage (the
 * database out of reach) is answered 503 with Retry-After and logged rate-limited.
 */
@Catch()
export abstract class ErrorShapeFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionFilter');
  private settings = DEFAULT_ERROR_SHAPE_SETTINGS;
  private outages = this.outageLog();

  constructor(
    private readonly clock: Clock,
    private readonly timeZone: string,
  ) {}

  protected abstract render(problem: Problem, timestamp: string): object;

  /** The body's DTO class (documents the platform's own answers in OpenAPI). */
  abstract readonly bodyType: Type<unknown>;

  /** Descriptions of the platform's own answers in OpenAPI, in the service's language. */
  abstract readonly openApiTexts: PlatformAnswers['texts'];

  /**
   * The body this filter answers an exception with (of a request with `method`), at a given
   * timestamp (OpenAPI examples).
   */
  example(exception: unknown, timestamp: string, method?: string): object {
    return this.render(toProblem(exception, method), timestamp);
  }

  configure(settings: ErrorShapeSettings): void {
    this.outages.flush();
    this.settings = settings;
    this.outages = this.outageLog();
  }

  /** Writes the outage counts still pending (at shutdown). */
  flushLogs(): void {
    this.outages.flush();
  }

  /** The body and status the service answers a failure with (of a request with `method`). */
  answer(
    exception: unknown,
    method?: string,
  ): { problem: Problem; body: object; headers: Record<string, string> } {
    const problem = toProblem(exception, method);
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    // A failure that knows when a retry may succeed (an open breaker, a downstream Retry-After,
    // a key in progress) says so; any other 503 gets the configured default.
    const retryAfter =
      problem.retryAfterSeconds ??
      (problem.status === 503 ? this.settings.retryAfterSeconds : undefined);
    if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
    if (problem.wwwAuthenticate) headers['www-authenticate'] = problem.wwwAuthenticate;

    if (problem.allow) headers.allow = problem.allow.join(', ');
    const body = this.render(problem, formatLocalDateTime(this.clock.now(), this.timeZone));
    return { problem, body, headers };
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const { problem, body, headers } = this.answer(exception, request?.method);
    if (problem.outage) {
      this.outages.report(problem.outage, {
        error: logSafeMessage(exception),
        reqId: request?.id,
        method: request?.method,
        url: request?.url,
      });
    } else if (problem.unexpected) {
      this.logger.error(
        { err: exception, reqId: request?.id, method: request?.method, url: request?.url },
        'Unexpected error',
      );
    }
    if (reply.sent) return;
    void reply.status(problem.status).headers(headers).send(body);
  }

  private outageLog(): RateLimitedLog {
    return new RateLimitedLog(this.settings.outageLogIntervalMs, ({ kind, detail, suppressed }) =>
      this.logger.error(
        { kind, suppressed, intervalMs: this.settings.outageLogIntervalMs, last: detail },
        suppressed ? `${kind}: ${suppressed} more failed requests since the last line` : kind,
      ),
    );
  }
}
