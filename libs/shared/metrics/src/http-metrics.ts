import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Metrics } from './metrics';
import { HistogramSeries } from './series-histogram';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Seconds; from a cached read (~1 ms) to the request timeout. */
export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** Label value of a route that matched nothing (404s of every unknown path share it). */
export const UNMATCHED_ROUTE = 'unmatched';

/** The status class's digit, 1 to 5 (what statusClass labels). */
function statusClassDigit(status: number): number {
  return Math.min(5, Math.max(1, Math.floor(status / 100)));
}

/** Status class label: 2xx, 3xx, 4xx, 5xx. */
export function statusClass(status: number): string {
  return `${statusClassDigit(status)}xx`;
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
 * A request finds its series through maps keyed by the strings Fastify already holds (its route
 * template, its method) and adds to it; the request count is read from the same series at
 * scrape time (docs/benchmarks.md: prom-client hashing the labels of every observation was most
 * of the metrics' cost per request).
 */
export function instrumentHttp(
  fastify: FastifyInstance,
  metrics: Metrics,
  options: HttpMetricsOptions,
): void {
  const labelNames = ['method', 'route', 'status_class'];
  const duration = metrics.seriesHistogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its response sent, by method, route template and status class',
    labelNames,
    buckets: HTTP_DURATION_BUCKETS,
  });
  metrics.counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status class',
    labelNames,
    collect() {
      this.reset();
      for (const series of duration.allSeries()) this.inc(series.labels, series.count);
    },
  });
  const replays = metrics.counter({
    name: 'http_idempotent_replays_total',
    help: 'Responses replayed for a repeated Idempotency-Key (nothing done again), by method and route template',
    labelNames: ['method', 'route'],
  });
  const skipped = new Set(options.skipRoutes);
  // route -> method -> status class (1-5) -> series
  const byRoute = new Map<string, Map<string, HistogramSeries[]>>();
  const seriesOf = (route: string, method: string, status: number): HistogramSeries => {
    let byMethod = byRoute.get(route);
    if (!byMethod) byRoute.set(route, (byMethod = new Map<string, HistogramSeries[]>()));
    let byClass = byMethod.get(method);
    if (!byClass) byMethod.set(method, (byClass = []));
    const digit = statusClassDigit(status);
    return (byClass[digit] ??= duration.series({
      method,
      route,
      status_class: statusClass(status),
    }));
  };
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    if (!skipped.has(route)) {
      const method = METHODS.has(request.method) ? request.method : 'OTHER';
      seriesOf(route, method, reply.statusCode).observe(reply.elapsedTime / 1000);
      if (reply.getHeader('idempotent-replayed') === 'true') replays.inc({ method, route });
    }
    done();
  });
}
