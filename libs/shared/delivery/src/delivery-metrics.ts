import { Counter } from 'prom-client';
import { Metrics, sampled } from '@bank/shared/metrics';
import type { DeliveryBacklog } from './delivery-store';

/** Backlog counts stop here: beyond it the backlog is "at least this", the age a lower bound. */
export const DELIVERY_COUNT_CAP = 100_000;
/** Scrapers share one backlog query per this interval. */
const BACKLOG_MAX_AGE_MS = 1_000;

/** What a delivery attempt came to, as a label. */
export type DeliveryOutcome = 'delivered' | 'retried' | 'dead' | 'superseded';

/** The outcome of an attempt from the state its row ended in (null: none changed, a retry). */
export function deliveryOutcome(state: string | null): DeliveryOutcome {
  switch (state) {
    case 'DELIVERED':
      return 'delivered';
    case 'DEAD':
      return 'dead';
    case 'SUPERSEDED':
      return 'superseded';
    default:
      return 'retried';
  }
}

/** A series' name and help text. */
export interface SeriesName {
  name: string;
  help: string;
}

/** The series of a queue: its backlog gauges and its attempts counter (labels type, outcome). */
export interface DeliverySeries {
  pending: SeriesName;
  dead: SeriesName;
  oldestPendingAge: SeriesName;
  attempts: SeriesName;
}

/**
 * A queue as an operator watches it: rows waiting and dead-lettered, the age of the oldest
 * waiting one (read at scrape time from the partial indexes of open rows, counts capped at
 * DELIVERY_COUNT_CAP; the same on every replica), and every delivery attempt by type and outcome.
 */
export class DeliveryMetrics {
  private readonly attempts: Counter<'type' | 'outcome'>;

  constructor(
    metrics: Metrics,
    backlogOf: (cap: number) => Promise<DeliveryBacklog>,
    series: DeliverySeries,
  ) {
    const backlog = sampled(() => backlogOf(DELIVERY_COUNT_CAP), BACKLOG_MAX_AGE_MS);
    const gauge = ({ name, help }: SeriesName, read: (b: DeliveryBacklog) => number) =>
      metrics.gauge({
        name,
        help,
        async collect() {
          const value = await backlog();
          this.set(value ? read(value) : NaN);
        },
      });
    gauge(series.pending, (b) => b.pending);
    gauge(series.dead, (b) => b.dead);
    gauge(series.oldestPendingAge, (b) => b.oldestPendingSeconds);
    this.attempts = metrics.counter({ ...series.attempts, labelNames: ['type', 'outcome'] });
  }

  /** Counts an attempt of a row of `type` that ended in `state` (null: none changed). */
  attempted(type: string, state: string | null): void {
    this.attempts.inc({ type, outcome: deliveryOutcome(state) });
  }
}
