import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Clock, formatLocalDateTime } from '@bank/shared/calendar';
import { Problem, toProblem } from './problem';

/**
 * The one global filter of a service: every exception, including the framework's own
 * (malformed JSON, 404 routes, 413 bodies) becomes the service's error body. Unexpected
 * errors are logged with their stack and answered with a generic 500.
 */
@Catch()
export abstract class ErrorShapeFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionFilter');

  constructor(
    private readonly clock: Clock,
    private readonly timeZone: string,
  ) {}

  protected abstract render(problem: Problem, timestamp: string): object;

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const problem = toProblem(exception);
    if (problem.unexpected) {
      this.logger.error(
        { err: exception, reqId: request?.id, method: request?.method, url: request?.url },
        'Unexpected error',
      );
    }
    const body = this.render(problem, formatLocalDateTime(this.clock.now(), this.timeZone));
    if (reply.sent) return;
    if (problem.retryAfterSeconds !== undefined) {
      void reply.header('retry-after', String(problem.retryAfterSeconds));
    }
    void reply
      .status(problem.status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(body);
  }
}
