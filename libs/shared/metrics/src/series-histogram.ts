import { Registry } from 'prom-client';

/** The labels of one series, as prom-client formats them. */
export type Labels = Record<string, string>;

/**
 * One series of a SeriesHistogram: what a request updates is three plain fields and a bucket
 * count, with no label object to validate, hash into a string and look up (what prom-client's
 * Histogram does on every observe: most of what the RED metrics cost a request).
 */
export class HistogramSeries {
  count = 0;
  sum = 0;
  /** Observations per bucket (not cumulative), the last one above every bound (+Inf). */
  readonly counts: number[];

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.count++;
    this.sum += value;
  }
}

interface ExportedValue {
  labels: Record<string, string | number>;
  /** The series' labels (absent in get()'s values: merged into `labels`). */
  sharedLabels?: Labels;
  value: number;
  metricName: string;
  /** None: as prom-client's Histogram without exemplars (null on buckets, absent on sum and count). */
  exemplar?: null;
}

/** What a prom-client registry reads from a metric to expose it. */
interface ExportedMetric {
  name: string;
  help: string;
  type: string;
  values: ExportedValue[];
  aggregator: string;
}

/**
 * A Prometheus histogram whose series are made once and kept by their callers
 * (`series(labels)`), registered in a prom-client registry and exposed by it exactly as a
 * prom-client Histogram with the same observations (`series-histogram.spec.ts` holds the two
 * side by side).
 */
export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** The series of `labels` (every label name given), made on first use; keep it. */
  series(labels: Labels): HistogramSeries {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let series = this.all.get(key);
    if (!series) {
      series = new HistogramSeries(labels, this.bounds);
      this.all.set(key, series);
    }
    return series;
  }

  /**
   * As prom-client's Histogram: buckets (cumulative), +Inf, sum and count per series (the
   * registry awaits it; nothing here waits).
   */
  getForPromString(): ExportedMetric {
    const values: ExportedValue[] = [];
    for (const series of this.all.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i];
        values.push({
          ...this.value({ le: bound }, cumulative, '_bucket', series),
          exemplar: null,
        });
      });
      values.push(
        { ...this.value({ le: '+Inf' }, series.count, '_bucket', series), exemplar: null },
        this.value({}, series.sum, '_sum', series),
        this.value({}, series.count, '_count', series),
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }

  /** As prom-client's get(): the series' labels merged into each value's. */
  get(): ExportedMetric {
    const data = this.getForPromString();
    data.values = data.values.map(({ sharedLabels, ...value }) => ({
      ...value,
      labels: { ...value.labels, ...sharedLabels },
    }));
    return data;
  }

  /** Every series back to zero (registry.resetMetrics); the callers keep theirs. */
  reset(): void {
    for (const series of this.all.values()) {
      series.count = 0;
      series.sum = 0;
      series.counts.fill(0);
    }
  }

  /** The series made so far. */
  allSeries(): IterableIterator<HistogramSeries> {
    return this.all.values();
  }

  private value(
    labels: Record<string, string | number>,
    value: number,
    suffix: string,
    series: HistogramSeries,
  ): ExportedValue {
    return { labels, sharedLabels: series.labels, value, metricName: `${this.name}${suffix}` };
  }
}
