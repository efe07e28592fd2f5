import { Injectable } from '@nestjs/common';
import { DELIVERY_COUNT_CAP, DeliveryMetrics } from '@bank/shared/delivery';
import { Metrics } from '@bank/shared/metrics';
import type { OutboxMessageType } from './outbox-message.model';
import { OutboxRepository } from './outbox.repository';

/** The `type` label of a message type. */
export function outboxTypeLabel(type: OutboxMessageType): 'create' | 'status' {
  return type === 'operation.create' ? 'create' : 'status';
}

/**
 * The outbox as an operator watches it (DeliveryMetrics): messages waiting and dead-lettered,
 * the age of the oldest waiting one, and every delivery attempt by message type
 * (outboxTypeLabel) and outcome.
 */
@Injectable()
export class OutboxMetrics extends DeliveryMetrics {
  constructor(metrics: Metrics, repository: OutboxRepository) {
    super(metrics, (cap) => repository.backlog(cap), {
      pending: {
        name: 'card_issue_outbox_pending_messages',
        help: `Outbox messages waiting for delivery (counted up to ${DELIVERY_COUNT_CAP})`,
      },
      dead: {
        name: 'card_issue_outbox_dead_messages',
        help: 'Outbox messages given up after OUTBOX_MAX_ATTEMPTS (dead letters, see outbox:redeliver)',
      },
      oldestPendingAge: {
        name: 'card_issue_outbox_oldest_pending_age_seconds',
        help: 'Age of the oldest outbox message waiting for delivery (0: none)',
      },
      attempts: {
        name: 'card_issue_outbox_delivery_attempts_total',
        help: 'Outbox delivery attempts, by message type (create, status) and outcome (delivered, retried, dead, superseded)',
      },
    });
  }
}
