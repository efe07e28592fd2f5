import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryStore } from '@bank/shared/delivery';
import type { CorrelationHeaders } from '@bank/shared/tracing';
import type { StoredWebhookEvent, WebhookEventType } from './webhook-events.model';
import { publicAttemptError } from './webhook-attempt-errors';
import {
  CLAIM_WEBHOOK_DELIVERIES_SQL,
  MARK_WEBHOOK_DELIVERED_SQL,
  PURGE_DELIVERED_WEBHOOKS_SQL,
  RECORD_WEBHOOK_SUBSCRIPTION_FAILURE_SQL,
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
  /** The subscription's run of failed attempts when it was claimed (0: its latest succeeded). */
  subscriptionFailures: number;
}

/** A subscription after a failed attempt (RECORD_WEBHOOK_SUBSCRIPTION_FAILURE_SQL). */
export interface SubscriptionFailureRecord {
  consecutiveFailures: number;
  failingSince: Date;
  /** This failure disabled it (WEBHOOK_AUTO_DISABLE_HOURS). */
  disabled: boolean;
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
  /**
   * Why it failed: `HTTP <status>`, `target refused`, `connection failed` or `timeout`
   * (ATTEMPT_ERRORS); null for a delivered attempt.
   */
  error: string | null;
  /** The first characters (at most 256) of the response body. */
  responsePrefix: string | null;
}

/** What the sender reports of one attempt, for the log. */
export type WebhookAttemptResult = Omit<WebhookAttempt, 'attempt'> & {
  /**
   * Why it failed in full (the rule, the resolver's answer, the socket error): for the service's
   * log lines only, never stored, since API clients read the delivery log.
   */
  detail?: string;
};

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
   * Claims due deliveries under a lease (CLAIM_WEBHOOK_DELIVERIES_SQL), subscriptions in turn:
   * up to `limit`, each subscription up to `perSubscription` (1 while failing) less what it has
   * in flight here (`inFlight`), and at most `failingSlots` of failing subscriptions together.
   */
  claim(options: {
    limit: number;
    leaseMs: number;
    inFlight: ReadonlyMap<string, number>;
    perSubscription: number;
    failingSlots: number;
  }): Promise<ClaimedWebhookDelivery[]> {
    const inFlight = [...options.inFlight.entries()];
    return this.dataSource.query<ClaimedWebhookDelivery[]>(CLAIM_WEBHOOK_DELIVERIES_SQL, [
      options.limit,
      options.leaseMs,
      inFlight.map(([subscriptionId]) => subscriptionId),
      inFlight.map(([, count]) => count),
      options.perSubscription,
      Math.max(0, options.failingSlots),
    ]);
  }

  /** Records a 2xx attempt; ends the subscription's run of failures, if any. */
  async markDelivered(
    delivery: ClaimedWebhookDelivery,
    result: WebhookAttemptResult,
  ): Promise<void> {
    await this.dataSource.query(MARK_WEBHOOK_DELIVERED_SQL, [
      ...attemptParams(delivery, result),
      delivery.subscriptionId,
    ]);
  }

  /**
   * A failed attempt of the subscription (RECORD_WEBHOOK_SUBSCRIPTION_FAILURE_SQL): its run of
   * failures grows, it backs off for `delayMs`, and it is disabled once the run is older than
   * `autoDisableHours` (0: never). Null when it was deleted meanwhile.
   */
  async recordSubscriptionFailure(
    delivery: ClaimedWebhookDelivery,
    result: WebhookAttemptResult,
    delayMs: number,
    autoDisableHours: number,
  ): Promise<SubscriptionFailureRecord | null> {
    const [row] = await this.dataSource.query<
      (Omit<SubscriptionFailureRecord, 'failingSince'> & { failingSince: number })[]
    >(RECORD_WEBHOOK_SUBSCRIPTION_FAILURE_SQL, [
      delivery.subscriptionId,
      result.at,
      Math.round(delayMs),
      autoDisableHours,
    ]);
    return row ? { ...row, failingSince: new Date(row.failingSince) } : null;
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
    // Errors as the log shows them, also those stored with their details by an earlier version.
    return rows.map((row) => ({
      ...row,
      lastError: publicAttemptError(row.lastError),
      nextAttemptAt: dateOf(row.nextAttemptAt),
      lastAttemptAt: dateOf(row.lastAttemptAt),
      createdAt: new Date(row.createdAt),
      deliveredAt: dateOf(row.deliveredAt),
      attemptLog: row.attemptLog.map((attempt) => ({
        ...attempt,
        error: publicAttemptError(attempt.error),
        at: new Date(attempt.at),
      })),
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
