import { Server } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyHttpOptions } from 'fastify';

/** The largest request body a service reads (413 beyond, in the service's error shape). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Every body of these services is JSON. Nest's Fastify adapter parses
 * application/x-www-form-urlencoded besides JSON: a form body would reach validation as an
 * object and be answered field by field, so the form parser is removed as soon as Nest has
 * registered it; Fastify's own text/plain parser would hand validation a bare string, so it
 * goes as soon as the instance exists. A form, like any type but JSON, is 415, never parsed.
 */
export class JsonOnlyFastifyAdapter extends FastifyAdapter {
  constructor(options: FastifyHttpOptions<Server>) {
    super(options);
    this.getInstance().removeContentTypeParser('text/plain');
  }

  override registerParserMiddleware(prefix?: string, rawBody?: boolean): void {
    super.registerParserMiddleware(prefix, rawBody);
    const fastify = this.getInstance();
    if (fastify.hasContentTypeParser('application/x-www-form-urlencoded'))
      fastify.removeContentTypeParser('application/x-www-form-urlencoded');
  }
}
