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
    if (!settings.enabled) return;
    collectDefaultMetrics({ register: this.registry });
    // Beside prom-client's process_resident_memory_bytes: what the memory alert divides it by.
    this.gauge({
      name: 'process_memory_limit_bytes',
      help: "The memory limit the process runs under (its container's cgroup limit); +Inf when there is none",
      collect() {
        this.set(memoryLimitBytes(process.constrainedMemory()));
      },
    });
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
 * The memory limit from what process.constrainedMemory() reports (libuv reads the cgroup's
 * memory.max, or memory.limit_in_bytes under cgroup v1): that limit, or +Inf when there is none
 * (0 when unknown, 2^64 - 1 for cgroup v2's "max", about 2^63 for cgroup v1's unlimited), so
 * that RSS / limit is 0 for a process without one.
 */
export function memoryLimitBytes(constrained: number): number {
  return constrained > 0 && constrained < 2 ** 62 ? constrained : Infinity;
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
