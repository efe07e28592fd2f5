import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryStore } from '@bank/shared/delivery';
import type { CorrelationHeaders } from '@bank/shared/tracing';
import type { StoredWebhookEvent, WebhookEventType } from './webhook-events.model';
import {
  CLAIM_WEBHOOK_DELIVERIES_SQL,
  MARK_WEBHOOK_DELIVERED_SQL,
  PURGE_DELIVERED_WEBHOOKS_SQL,
  REDELIVER_WEBHOOK_DELIVERY_SQL,
  SELECT_WEBHOOK_BACKLOG_SQL,
  SELECT_WEBHOOK_DELIVERY_LOG_SQL,
  SETTLE_WEBHOOK_FAILURE_SQL,
} from './webhook-deliveries.sql';

/** The webhook_deliveries.state column. */
export const WEBHOOK_DELIVERY_STATES = ['PENDING', 'DELIVERED', 'DEAD'] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

/** A delivery claimed for an attempt (CLAIM_WEBHOOK_DELIVERIES_SQL). */
export interface ClaimedWebhookDelivery extends StoredWebhookEvent {
  id: string;
  subscriptionId: string;
  /** This attempt's number, 1 for the first (since the last redelivery). */
  attempts: number;
  traceContext: CorrelationHeaders | null;
  url: string;
  /** The secrets that sign this attempt: the current one first, then the previous one while its overlap runs. */
  secrets: string[];
}

/** One attempt as the log records it. */
export interface WebhookAttempt {
  /** Its number (1 for the first since the last redelivery). */
  attempt: number;
  /** When it started. */
  at: Date;
  /** The receiver's HTTP status; null when none came (timeout, refused, connection error). */
  statusCode: number | null;
  latencyMs: number;
  /** Why it failed; null for a delivered attempt. */
  error: string | null;
  /** The first characters (at most 256) of the response body. */
  responsePrefix: string | null;
}

/** What the sender reports of one attempt, for the log. */
export type WebhookAttemptResult = Omit<WebhookAttempt, 'attempt'>;

/** One delivery in the log of its subscription (listForSubscription). */
export interface WebhookDeliveryLogEntry {
  /** The delivery id (what redeliver takes). */
  id: string;
  eventId: string;
  eventType: WebhookEventType;
  requestId: string;
  sequence: number;
  state: WebhookDeliveryState;
  /** Attempts made (since the last redelivery). */
  attempts: number;
  /** null unless PENDING. */
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  createdAt: Date;
  /** null unless DELIVERED. */
  deliveredAt: Date | null;
  /** Its attempts, first first (those before a redelivery included). */
  attemptLog: WebhookAttempt[];
}

export type RedeliverOutcome = 'redelivered' | 'not-dead' | 'not-found';

type Epoch = number | null;
interface LogRow extends Omit<
  WebhookDeliveryLogEntry,
  'nextAttemptAt' | 'lastAttemptAt' | 'createdAt' | 'deliveredAt' | 'attemptLog'
> {
  nextAttemptAt: Epoch;
  lastAttemptAt: Epoch;
  createdAt: number;
  deliveredAt: Epoch;
  attemptLog: (Omit<WebhookAttempt, 'at'> & { at: number })[];
}

const dateOf = (epoch: Epoch): Date | null => (epoch === null ? null : new Date(epoch));
const DELIVERY_ID = /^[1-9]\d{0,17}$/;
const MAX_ERROR_LENGTH = 500;

/**
 * Webhook delivery storage: runs the statements of webhook-deliveries.sql.ts (the backlog and
 * the purge of delivered rows as every delivery queue does, DeliveryStore).
 */
@Injectable()
export class WebhookDeliveriesRepository extends DeliveryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super(dataSource, {
      purgeSettled: PURGE_DELIVERED_WEBHOOKS_SQL,
      backlog: SELECT_WEBHOOK_BACKLOG_SQL,
    });
  }

  /**
   * Claims due deliveries under a lease (CLAIM_WEBHOOK_DELIVERIES_SQL): up to `limit`, none of
   * a subscription in `busy` beyond its free slots, up to `perSubscription` of any other.
   */
  claim(options: {
    limit: number;
    leaseMs: number;
    busy: ReadonlyMap<string, number>;
    perSubscription: number;
  }): Promise<ClaimedWebhookDelivery[]> {
    const busy = [...options.busy.entries()];
    return this.dataSource.query<ClaimedWebhookDelivery[]>(CLAIM_WEBHOOK_DELIVERIES_SQL, [
      options.limit,
      options.leaseMs,
      busy.map(([subscriptionId]) => subscriptionId),
      busy.map(([, free]) => free),
      options.perSubscription,
      // Candidates beyond the limit, so one subscription at its cap does not fill the window.
      options.limit + busy.length * options.perSubscription + 16,
    ]);
  }

  async markDelivered(
    delivery: ClaimedWebhookDelivery,
    result: WebhookAttemptResult,
  ): Promise<void> {
    await this.dataSource.query(MARK_WEBHOOK_DELIVERED_SQL, attemptParams(delivery, result));
  }

  /** Records a failed attempt; returns the state the delivery ends in (null: settled elsewhere). */
  async settleFailure(
    delivery: ClaimedWebhookDelivery,
    result: WebhookAttemptResult,
    delayMs: number,
    maxAttempts: number,
  ): Promise<WebhookDeliveryState | null> {
    const rows = await this.dataSource.query<{ state: WebhookDeliveryState }[]>(
      SETTLE_WEBHOOK_FAILURE_SQL,
      [...attemptParams(delivery, result), delayMs, maxAttempts],
    );
    return rows[0]?.state ?? null;
  }

  /** A DEAD delivery of the subscription back to PENDING, due now (REDELIVER_WEBHOOK_DELIVERY_SQL). */
  async redeliver(subscriptionId: string, deliveryId: string): Promise<RedeliverOutcome> {
    if (!DELIVERY_ID.test(deliveryId)) return 'not-found';
    const [row] = await this.dataSource.query<{ outcome: RedeliverOutcome }[]>(
      REDELIVER_WEBHOOK_DELIVERY_SQL,
      [subscriptionId, deliveryId],
    );
    return row.outcome;
  }

  /** The subscription's deliveries, newest first, with their attempts. */
  async listForSubscription(
    subscriptionId: string,
    page: { state?: WebhookDeliveryState; limit: number; offset: number },
  ): Promise<WebhookDeliveryLogEntry[]> {
    const rows = await this.dataSource.query<LogRow[]>(SELECT_WEBHOOK_DELIVERY_LOG_SQL, [
      subscriptionId,
      page.state ?? null,
      page.limit,
      page.offset,
    ]);
    return rows.map((row) => ({
      ...row,
      nextAttemptAt: dateOf(row.nextAttemptAt),
      lastAttemptAt: dateOf(row.lastAttemptAt),
      createdAt: new Date(row.createdAt),
      deliveredAt: dateOf(row.deliveredAt),
      attemptLog: row.attemptLog.map((attempt) => ({ ...attempt, at: new Date(attempt.at) })),
    }));
  }
}

/** $1..$7 of the attempt statements (see INSERT_ATTEMPT in webhook-deliveries.sql.ts). */
function attemptParams(delivery: ClaimedWebhookDelivery, result: WebhookAttemptResult): unknown[] {
  return [
    delivery.id,
    delivery.attempts,
    result.at,
    result.statusCode,
    Math.round(result.latencyMs),
    result.error?.slice(0, MAX_ERROR_LENGTH) ?? null,
    result.responsePrefix,
  ];
}
