import { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';

/** The app's adapter, as createHttpAdapter built it (the key of each installer's settings). */
export function fastifyAdapterOf(app: INestApplication): FastifyAdapter {
  return app.getHttpAdapter() as unknown as FastifyAdapter;
}
