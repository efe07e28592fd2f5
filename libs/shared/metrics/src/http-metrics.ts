import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Metrics } from './metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Seconds; from a cached read (~1 ms) to the request timeout. */
export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** Label value of a route that matched nothing (404s of every unknown path share it). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Status class label: 1xx to 5xx. */
export function statusClass(status: number): string {
  return `${Math.min(5, Math.max(1, Math.floor(status / 100)))}xx`;
}

export interface HttpMetricsOptions {
  /** Route templates not counted (the probes: their own rate is noise in RED panels). */
  skipRoutes: string[];
}

/**
 * RED metrics per route on the Fastify instance: requests by method, route template and status
 * class, their duration (Fastify's own elapsed time, from onRequest to the response sent), and
 * the Idempotency-Key replays (the services mark them with `Idempotent-Replayed: true`). Labels
 * are templates (`/api/v1/card-issue/:requestId`), never the URL, so ids never become series.
 * A request is one observation of prom-client's Histogram; the request count is read from the
 * histogram's counts at scrape time.
 */
export function instrumentHttp(
  fastify: FastifyInstance,
  metrics: Metrics,
  options: HttpMetricsOptions,
): void {
  const labelNames = ['method', 'route', 'status_class'] as const;
  const duration = metrics.histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its response sent, by method, route template and status class',
    labelNames,
    buckets: HTTP_DURATION_BUCKETS,
  });
  const countName = 'http_request_duration_seconds_count';
  metrics.counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status class',
    labelNames,
    async collect() {
      this.reset();
      for (const { metricName, labels, value } of (await duration.get()).values)
        if (metricName === countName) this.inc(labels, value);
    },
  });
  const replays = metrics.counter({
    name: 'http_idempotent_replays_total',
    help: 'Responses replayed for a repeated Idempotency-Key (nothing done again), by method and route template',
    labelNames: ['method', 'route'],
  });
  const skipped = new Set(options.skipRoutes);
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    if (!skipped.has(route)) {
      const method = METHODS.has(request.method) ? request.method : 'OTHER';
      duration.observe(
        { method, route, status_class: statusClass(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      if (reply.getHeader('idempotent-replayed') === 'true') replays.inc({ method, route });
    }
    done();
  });
}
