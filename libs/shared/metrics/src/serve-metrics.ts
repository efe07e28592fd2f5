import type { FastifyInstance } from 'fastify';
import { Metrics, METRICS_PATH } from './metrics';

/**
 * GET /metrics on the service's own Fastify instance, outside Nest: no guard (authentication,
 * rate limit), pipe or global prefix applies to it. Only when the metrics are on and have no
 * port of their own.
 */
export function serveMetrics(fastify: FastifyInstance, metrics: Metrics): void {
  if (!metrics.enabled || metrics.settings.port !== undefined) return;
  fastify.get(METRICS_PATH, async (_request, reply) => {
    const text = await metrics.scrape();
    return reply.header('content-type', metrics.contentType).send(text);
  });
}
