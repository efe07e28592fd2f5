import { Inject, Injectable } from '@nestjs/common';
import {
  collectDefaultMetrics,
  Counter,
  CounterConfiguration,
  Gauge,
  GaugeConfiguration,
  Histogram,
  HistogramConfiguration,
  Registry,
} from 'prom-client';

/** How the metrics are served (from METRICS_ENABLED and METRICS_PORT). */
export interface MetricsSettings {
  /** false: no /metrics, no per-request instrumentation, no process metrics. */
  enabled: boolean;
  /** A port of its own for /metrics (0: any free one, tests); unset: the service's HTTP port. */
  port?: number;
  host: string;
  serviceName: string;
}

export const METRICS_SETTINGS = Symbol('METRICS_SETTINGS');

/** The path Prometheus scrapes, at the root whatever BASE_PATH is (it is scraped on the pod, not through the ingress). */
export const METRICS_PATH = '/metrics';

/**
 * The metrics of one service instance: a registry of its own (several apps may run in one
 * process, e.g. in tests), the process metrics of prom-client, and factories that register
 * a metric there. Series are created by the features that own what they measure.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  constructor(@Inject(METRICS_SETTINGS) readonly settings: MetricsSettings) {
    if (settings.enabled) collectDefaultMetrics({ register: this.registry });
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  counter<L extends string>(config: CounterConfiguration<L>): Counter<L> {
    return new Counter({ ...config, registers: [this.registry] });
  }

  gauge<L extends string>(config: GaugeConfiguration<L>): Gauge<L> {
    return new Gauge({ ...config, registers: [this.registry] });
  }

  histogram<L extends string>(config: HistogramConfiguration<L>): Histogram<L> {
    return new Histogram({ ...config, registers: [this.registry] });
  }

  /** The exposition text (collects the gauges that read the database first). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * A value read at scrape time, shared by the gauges that show parts of it: one query per
 * `maxAgeMs` however many gauges (or scrapers) ask, and concurrent asks share the query in flight.
 * A failed read gives null (the gauges then show NaN: unknown, rather than a stale value).
 */
export function sampled<T>(load: () => Promise<T>, maxAgeMs: number): () => Promise<T | null> {
  let last: { at: number; value: Promise<T | null> } | null = null;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= maxAgeMs) {
      last = { at: now, value: load().catch(() => null) };
    }
    return last.value;
  };
}
