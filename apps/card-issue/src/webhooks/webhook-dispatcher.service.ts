import { Inject, Injectable, Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { databaseOutage } from '@bank/shared/database';
import { DeliveryQueue, DeliveryService } from '@bank/shared/delivery';
import { FailureLog } from '@bank/shared/logging';
import { ENVIRONMENT } from '@bank/shared/nest';
import {
  continueTrace,
  correlationHeaders,
  failCurrentSpan,
  REQUEST_ID_HEADER,
  runDetached,
} from '@bank/shared/tracing';
import { unixSeconds, webhookSignatureHeaders } from '@bank/shared/webhooks';
import { CardIssueEnvironment } from '../config/environment.config';
import {
  ClaimedWebhookDelivery,
  WebhookAttemptResult,
  WebhookDeliveriesRepository,
  WebhookDeliveryState,
} from './webhook-deliveries.repository';
import { serializeWebhookBody } from './webhook-events.model';
import { WebhookSender } from './webhook-sender';
import { WebhooksMetrics } from './webhooks.metrics';

export const WEBHOOK_USER_AGENT = 'card-issue-webhooks/1';
/** Deliveries deleted per purge statement. */
const PURGE_BATCH_SIZE = 5_000;
/**
 * The lease of a claimed delivery is twice its attempt's limit (WEBHOOK_TIMEOUT_MS) and this
 * much more, time to record the outcome: another replica takes it over only when this one is
 * gone or stuck, and sends it again (at least once; the receiver deduplicates by webhook-id).
 */
const LEASE_MARGIN_MS = 1_000;

/**
 * The share of WEBHOOK_CONCURRENCY that deliveries to failing subscriptions (their latest attempt
 * failed) may hold together: the rest is always there for the subscriptions that answer.
 */
export function failingSlotsOf(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 2));
}

/**
 * Sends webhook deliveries (docs/webhooks.md "Delivery") as a DeliveryQueue of their own
 * (@bank/shared/delivery), apart from the operation outbox: its own table, its own rounds, its
 * own HTTP connections. A round claims while there are free slots and never waits for a batch:
 * each claimed delivery runs on its own, at most WEBHOOK_CONCURRENCY in flight in this process.
 * The claim serves subscriptions in turn (docs/webhooks.md "Fairness between subscriptions"):
 * WEBHOOK_SUBSCRIPTION_CONCURRENCY in flight for one subscription, 1 while it is failing, none
 * during its own back-off after a failed attempt, and the failing ones together at most half the
 * slots (failingSlotsOf), so receivers that are slow or dead, however many subscriptions point at
 * them, leave the other subscriptions slots to use. A finished delivery frees its slot and asks
 * for another round at once, which also picks up the next event of the same request for that
 * receiver. A round every WEBHOOK_TICK_MS picks up retries whose backoff (with full jitter) ran
 * out, subscriptions whose back-off ended and deliveries whose lease expired (a replica that
 * died); every hour the deliveries delivered more than WEBHOOK_RETENTION_HOURS ago are deleted.
 * A subscription whose attempts have all failed for WEBHOOK_AUTO_DISABLE_HOURS is disabled, with
 * a log line.
 *
 * At least once: a delivery is marked DELIVERED after its 2xx, so a crash in between (or a lease
 * that ran out) sends it again with the same webhook-id; receivers deduplicate by it.
 */
@Injectable()
export class WebhookDispatcherService extends DeliveryService {
  private readonly logger = new Logger(WebhookDispatcherService.name);
  private readonly inFlight = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private inFlightTotal = 0;
  /** Deliveries in flight whose subscription was failing when they were claimed. */
  private inFlightFailing = 0;
  protected override readonly queue: DeliveryQueue;
  /**
   * Outcomes that could not be recorded (the database out of reach, e.g. during a failover):
   * one line per interval with the count, no stack for a known outage.
   */
  private readonly failures: FailureLog;

  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    private readonly sender: WebhookSender,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
    private readonly metrics: WebhooksMetrics,
    registry: SchedulerRegistry,
  ) {
    super();
    this.failures = new FailureLog(this.logger, env.ERROR_LOG_INTERVAL_MS, databaseOutage);
    this.queue = new DeliveryQueue(registry, this.logger, {
      name: 'webhook',
      enabled: env.WEBHOOKS_ENABLED,
      tickMs: env.WEBHOOK_TICK_MS,
      step: () => this.claimAndStart(),
      retry: { baseMs: env.WEBHOOK_RETRY_BASE_MS, maxMs: env.WEBHOOK_RETRY_MAX_MS, jitter: true },
      store: repository,
      retentionHours: env.WEBHOOK_RETENTION_HOURS,
      purgeBatchSize: PURGE_BATCH_SIZE,
      failureLogIntervalMs: env.ERROR_LOG_INTERVAL_MS,
      lines: {
        roundFailed: 'Webhook claim round failed',
        purged: 'Purged delivered webhook deliveries',
        purgeFailed: 'Webhook purge failed',
      },
    });
  }

  /**
   * Claims and starts due deliveries while slots are free; concurrent calls share one round.
   * Resolves when everything due was started, not when it was delivered (see settled()); a round
   * whose claim failed is logged, and resolves all the same.
   */
  pump(): Promise<void> {
    return this.queue.run().catch(() => undefined);
  }

  /** One step of a round: claims for the free slots and starts what came; whether to claim again. */
  private async claimAndStart(): Promise<boolean> {
    if (this.freeSlots() <= 0) return false;
    const claimed = await this.repository.claim({
      limit: this.freeSlots(),
      leaseMs: 2 * this.env.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS,
      inFlight: new Map(this.inFlight),
      perSubscription: this.env.WEBHOOK_SUBSCRIPTION_CONCURRENCY,
      failingSlots: failingSlotsOf(this.env.WEBHOOK_CONCURRENCY) - this.inFlightFailing,
    });
    for (const delivery of claimed) this.start(delivery);
    return claimed.length > 0;
  }

  /** Resolves once the deliveries in flight now have finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0 || this.queue.busy) {
      await Promise.all([...this.running, this.queue.idle()]);
    }
  }

  /** Deliveries this process is sending now. */
  get inFlightCount(): number {
    return this.inFlightTotal;
  }

  /**
   * Deletes the deliveries DELIVERED more than WEBHOOK_RETENTION_HOURS ago, batch after batch
   * (bounded, so one run cannot hold the scheduler forever); returns how many.
   */
  purgeDelivered(maxBatches?: number): Promise<number> {
    return this.queue.purgeSettled(maxBatches);
  }

  private freeSlots(): number {
    return this.env.WEBHOOK_CONCURRENCY - this.inFlightTotal;
  }

  private start(delivery: ClaimedWebhookDelivery): void {
    const failing = delivery.subscriptionFailures > 0;
    this.inFlightTotal++;
    if (failing) this.inFlightFailing++;
    this.inFlight.set(
      delivery.subscriptionId,
      (this.inFlight.get(delivery.subscriptionId) ?? 0) + 1,
    );
    this.metrics.setInFlight(this.inFlightTotal);
    const run: Promise<void> = runDetached(() =>
      continueTrace(
        delivery.traceContext,
        `webhook deliver ${delivery.eventType}`,
        {
          'webhook.delivery.id': delivery.id,
          'webhook.event.id': delivery.eventId,
          'webhook.event.type': delivery.eventType,
          'webhook.subscription.id': delivery.subscriptionId,
          'webhook.attempt': delivery.attempts,
          'card_issue.request_id': delivery.requestId,
        },
        () => this.deliver(delivery),
      ),
    )
      .catch((error: unknown) =>
        // Recording the outcome failed (database out of reach): the lease runs out and the
        // delivery is attempted again, which at-least-once allows.
        this.failures.report('Webhook delivery outcome could not be recorded', error, {
          deliveryId: delivery.id,
          subscriptionId: delivery.subscriptionId,
        }),
      )
      .finally(() => {
        this.running.delete(run);
        this.inFlightTotal--;
        if (failing) this.inFlightFailing--;
        const left = (this.inFlight.get(delivery.subscriptionId) ?? 1) - 1;
        if (left > 0) this.inFlight.set(delivery.subscriptionId, left);
        else this.inFlight.delete(delivery.subscriptionId);
        this.metrics.setInFlight(this.inFlightTotal);
        this.kick();
      });
    this.running.add(run);
  }

  private async deliver(delivery: ClaimedWebhookDelivery): Promise<void> {
    const body = serializeWebhookBody(delivery);
    const timestamp = unixSeconds(new Date());
    const result = await this.sender.post({
      url: delivery.url,
      body,
      headers: this.headersOf(delivery, body, timestamp),
      timeoutMs: this.env.WEBHOOK_TIMEOUT_MS,
    });
    let state: WebhookDeliveryState | null;
    if (result.error === null) {
      await this.repository.markDelivered(delivery, result);
      state = 'DELIVERED';
    } else {
      failCurrentSpan(result.statusCode === null ? 'no response' : `HTTP ${result.statusCode}`);
      state = await this.repository.settleFailure(
        delivery,
        result,
        this.queue.retryDelayMs(delivery.attempts),
        this.env.WEBHOOK_MAX_ATTEMPTS,
      );
      await this.recordSubscriptionFailure(delivery, result);
      if (state === 'DEAD') {
        this.logger.warn(
          {
            deliveryId: delivery.id,
            subscriptionId: delivery.subscriptionId,
            eventId: delivery.eventId,
            attempts: delivery.attempts,
            lastError: result.error,
            detail: result.detail,
          },
          'Webhook delivery given up after its last attempt (redeliver it through the API)',
        );
      }
    }
    this.metrics.attempted(
      delivery.eventType,
      state,
      result.statusCode === null ? null : result.latencyMs,
    );
  }

  /**
   * The subscription backs off as a whole (its other requests' deliveries wait too), longer
   * with each failure in a row, and is disabled once its failures have lasted
   * WEBHOOK_AUTO_DISABLE_HOURS.
   */
  private async recordSubscriptionFailure(
    delivery: ClaimedWebhookDelivery,
    result: WebhookAttemptResult,
  ): Promise<void> {
    const record = await this.repository.recordSubscriptionFailure(
      delivery,
      result,
      this.queue.retryDelayMs(delivery.subscriptionFailures + 1),
      this.env.WEBHOOK_AUTO_DISABLE_HOURS,
    );
    if (record?.disabled) {
      this.logger.warn(
        {
          subscriptionId: delivery.subscriptionId,
          failingSince: record.failingSince.toISOString(),
          consecutiveFailures: record.consecutiveFailures,
          lastError: result.error,
          detail: result.detail,
          autoDisableHours: this.env.WEBHOOK_AUTO_DISABLE_HOURS,
        },
        'Webhook subscription disabled: its attempts have all failed for WEBHOOK_AUTO_DISABLE_HOURS; its deliveries wait until it is enabled again (PATCH enabled=true)',
      );
    }
  }

  /**
   * The headers of one attempt: the Standard Webhooks headers (the event id as webhook-id, this
   * attempt's timestamp, the signature over both and the body with every secret valid now), and
   * the correlation of the change (X-Request-Id, and traceparent: this delivery's span while
   * tracing runs, else the one stored with the change).
   */
  private headersOf(
    delivery: ClaimedWebhookDelivery,
    body: string,
    timestamp: number,
  ): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      ...webhookSignatureHeaders(delivery.eventId, timestamp, body, delivery.secrets),
    };
    const current = correlationHeaders();
    const traceparent = current.traceparent ?? delivery.traceContext?.traceparent;
    if (traceparent) headers.traceparent = traceparent;
    const requestId = current[REQUEST_ID_HEADER] ?? delivery.traceContext?.[REQUEST_ID_HEADER];
    if (requestId) headers['X-Request-Id'] = requestId;
    return headers;
  }

  override onApplicationBootstrap(): void {
    if (!this.env.WEBHOOKS_ENABLED)
      this.logger.log('Webhook delivery is off (WEBHOOKS_ENABLED=false); events wait');
    super.onApplicationBootstrap();
  }

  /** Besides: the deliveries in flight finish (each within its timeout). */
  override async beforeApplicationShutdown(): Promise<void> {
    await super.beforeApplicationShutdown();
    await this.settled();
    this.failures.flush();
  }
}
