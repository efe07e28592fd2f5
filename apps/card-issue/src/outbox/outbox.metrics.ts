import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { Metrics, sampled } from '@bank/shared/metrics';
import { OutboxMessageState, OutboxMessageType } from './outbox-message.model';
import { OutboxRepository } from './outbox.repository';

/** Counts stop here: beyond it the backlog is "at least this", the age a lower bound. */
export const OUTBOX_COUNT_CAP = 100_000;
/** Scrapers share one backlog query per this interval. */
const BACKLOG_MAX_AGE_MS = 1_000;

/** What a delivery attempt came to, as a label. */
export type DeliveryOutcome = 'delivered' | 'retried' | 'dead' | 'superseded';

export function deliveryOutcome(state: OutboxMessageState | 'DELIVERED'): DeliveryOutcome {
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

/**
 * The outbox as an operator watches it: messages waiting and dead-lettered, the age of the
 * oldest waiting one (read at scrape time from the partial indexes of open messages; the same on
 * every replica), and every delivery attempt by message type and outcome.
 */
@Injectable()
export class OutboxMetrics {
  private readonly attempts: Counter<'type' | 'outcome'>;

  constructor(metrics: Metrics, repository: OutboxRepository) {
    const backlog = sampled(() => repository.backlog(OUTBOX_COUNT_CAP), BACKLOG_MAX_AGE_MS);
    metrics.gauge({
      name: 'card_issue_outbox_pending_messages',
      help: `Outbox messages waiting for delivery (counted up to ${OUTBOX_COUNT_CAP})`,
      async collect() {
        this.set((await backlog())?.pending ?? NaN);
      },
    });
    metrics.gauge({
      name: 'card_issue_outbox_dead_messages',
      help: 'Outbox messages given up after OUTBOX_MAX_ATTEMPTS (dead letters, see outbox:redeliver)',
      async collect() {
        this.set((await backlog())?.dead ?? NaN);
      },
    });
    metrics.gauge({
      name: 'card_issue_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest outbox message waiting for delivery (0: none)',
      async collect() {
        this.set((await backlog())?.oldestPendingSeconds ?? NaN);
      },
    });
    this.attempts = metrics.counter({
      name: 'card_issue_outbox_delivery_attempts_total',
      help: 'Outbox delivery attempts, by message type (create, status) and outcome (delivered, retried, dead, superseded)',
      labelNames: ['type', 'outcome'],
    });
  }

  attempted(type: OutboxMessageType, outcome: DeliveryOutcome): void {
    this.attempts.inc({ type: type === 'operation.create' ? 'create' : 'status', outcome });
  }
}
