import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { Metrics, sampled } from '@bank/shared/metrics';
import { WebhookDeliveriesRepository, WebhookDeliveryState } from './webhook-deliveries.repository';
import type { WebhookEventType } from './webhook-events.model';

/** Counts stop here: beyond it the backlog is "at least this", the age a lower bound. */
export const WEBHOOK_COUNT_CAP = 100_000;
/** Scrapers share one backlog query per this interval. */
const BACKLOG_MAX_AGE_MS = 1_000;

/** What a delivery attempt came to, as a label. */
export type WebhookAttemptOutcome = 'delivered' | 'retried' | 'dead';

export function webhookAttemptOutcome(state: WebhookDeliveryState | null): WebhookAttemptOutcome {
  if (state === 'DELIVERED') return 'delivered';
  return state === 'DEAD' ? 'dead' : 'retried';
}

/**
 * Webhooks as an operator watches them, beside the operation outbox's series: deliveries waiting
 * and dead-lettered and the age of the oldest waiting one (read at scrape time from the partial
 * indexes; the same on every replica), attempts by event type and outcome, the receivers'
 * latency, and this process's deliveries in flight (at WEBHOOK_CONCURRENCY, receivers are slow).
 * No label per subscription: their number is the API clients' to choose.
 */
@Injectable()
export class WebhooksMetrics {
  private readonly attempts: Counter<'type' | 'outcome'>;
  private readonly latency: Histogram;
  private readonly inFlight: Gauge;

  constructor(metrics: Metrics, repository: WebhookDeliveriesRepository) {
    const backlog = sampled(() => repository.backlog(WEBHOOK_COUNT_CAP), BACKLOG_MAX_AGE_MS);
    metrics.gauge({
      name: 'card_issue_webhook_pending_deliveries',
      help: `Webhook deliveries waiting (counted up to ${WEBHOOK_COUNT_CAP})`,
      async collect() {
        this.set((await backlog())?.pending ?? NaN);
      },
    });
    metrics.gauge({
      name: 'card_issue_webhook_dead_deliveries',
      help: 'Webhook deliveries given up after WEBHOOK_MAX_ATTEMPTS (redelivered through the API)',
      async collect() {
        this.set((await backlog())?.dead ?? NaN);
      },
    });
    metrics.gauge({
      name: 'card_issue_webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest webhook delivery waiting (0: none)',
      async collect() {
        this.set((await backlog())?.oldestPendingSeconds ?? NaN);
      },
    });
    this.attempts = metrics.counter({
      name: 'card_issue_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts, by event type and outcome (delivered, retried, dead)',
      labelNames: ['type', 'outcome'],
    });
    this.latency = metrics.histogram({
      name: 'card_issue_webhook_delivery_seconds',
      help: 'Time from sending a webhook to its response status (attempts that got one)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
    this.inFlight = metrics.gauge({
      name: 'card_issue_webhook_deliveries_in_flight',
      help: 'Webhook deliveries this process is sending (at most WEBHOOK_CONCURRENCY)',
    });
  }

  attempted(
    type: WebhookEventType,
    outcome: WebhookAttemptOutcome,
    latencyMs: number | null,
  ): void {
    this.attempts.inc({ type, outcome });
    if (latencyMs !== null) this.latency.observe(latencyMs / 1000);
  }

  setInFlight(count: number): void {
    this.inFlight.set(count);
  }
}
