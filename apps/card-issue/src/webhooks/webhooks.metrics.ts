import { Injectable } from '@nestjs/common';
import { Gauge, Histogram } from 'prom-client';
import { DELIVERY_COUNT_CAP, DeliveryMetrics } from '@bank/shared/delivery';
import { Metrics } from '@bank/shared/metrics';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';

/**
 * Webhooks as an operator watches them, beside the operation outbox's series (DeliveryMetrics):
 * deliveries waiting and dead-lettered, the age of the oldest waiting one and attempts by event
 * type and outcome; besides, the receivers' latency and this process's deliveries in flight (at
 * WEBHOOK_CONCURRENCY, receivers are slow). No label per subscription: their number is the API
 * clients' to choose.
 */
@Injectable()
export class WebhooksMetrics extends DeliveryMetrics {
  private readonly latency: Histogram;
  private readonly inFlight: Gauge;

  constructor(metrics: Metrics, repository: WebhookDeliveriesRepository) {
    super(metrics, (cap) => repository.backlog(cap), {
      pending: {
        name: 'card_issue_webhook_pending_deliveries',
        help: `Webhook deliveries waiting (counted up to ${DELIVERY_COUNT_CAP})`,
      },
      dead: {
        name: 'card_issue_webhook_dead_deliveries',
        help: 'Webhook deliveries given up after WEBHOOK_MAX_ATTEMPTS (redelivered through the API)',
      },
      oldestPendingAge: {
        name: 'card_issue_webhook_oldest_pending_age_seconds',
        help: 'Age of the oldest webhook delivery waiting (0: none)',
      },
      attempts: {
        name: 'card_issue_webhook_delivery_attempts_total',
        help: 'Webhook delivery attempts, by event type and outcome (delivered, retried, dead)',
      },
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

  /** Counts an attempt, and the receiver's latency when it answered (`latencyMs` not null). */
  override attempted(type: string, state: string | null, latencyMs: number | null = null): void {
    super.attempted(type, state);
    if (latencyMs !== null) this.latency.observe(latencyMs / 1000);
  }

  setInFlight(count: number): void {
    this.inFlight.set(count);
  }
}
