import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { ENVIRONMENT } from '@bank/shared/nest';
import { RateLimitedLog } from '@bank/shared/logging';
import {
  continueTrace,
  correlationHeaders,
  failCurrentSpan,
  REQUEST_ID_HEADER,
  runDetached,
} from '@bank/shared/tracing';
import {
  unixSeconds,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookSignatureHeader,
} from '@bank/shared/webhooks';
import { CardIssueEnvironment } from '../config/environment.config';
import {
  ClaimedWebhookDelivery,
  WebhookDeliveriesRepository,
  WebhookDeliveryState,
} from './webhook-deliveries.repository';
import { serializeWebhookBody } from './webhook-events.model';
import { WebhookSender } from './webhook-sender';
import { webhookRetryDelayMs } from './webhooks.backoff';
import { webhookAttemptOutcome, WebhooksMetrics } from './webhooks.metrics';

const HOUR_MS = 3_600_000;
export const WEBHOOK_USER_AGENT = 'card-issue-webhooks/1';
/** Deliveries deleted per purge statement. */
const PURGE_BATCH_SIZE = 5_000;
/** A failed claim round is logged at most once per this interval. */
const ROUND_FAILURE_LOG_INTERVAL_MS = 10_000;
/**
 * The lease of a claimed delivery is twice its attempt's limit (WEBHOOK_TIMEOUT_MS) and this
 * much more, time to record the outcome: another replica takes it over only when this one is
 * gone or stuck, and sends it again (at least once; the receiver deduplicates by Webhook-Id).
 */
const LEASE_MARGIN_MS = 1_000;

/**
 * Sends webhook deliveries (docs/webhooks.md "Delivery"), apart from the operation outbox: its
 * own table, its own loop, its own HTTP connections. The loop claims while there are free slots
 * and never waits for a batch: each claimed delivery runs on its own, at most
 * WEBHOOK_CONCURRENCY in flight in this process and WEBHOOK_SUBSCRIPTION_CONCURRENCY for one
 * subscription (the claim skips a subscription at its cap), so a slow or dead receiver holds
 * its own slots and nothing else. A finished delivery frees its slot and asks for another round
 * at once, which also picks up the next event of the same request for that receiver.
 *
 * At least once: a delivery is marked DELIVERED after its 2xx, so a crash in between (or a lease
 * that ran out) sends it again with the same Webhook-Id; receivers deduplicate by it.
 */
@Injectable()
export class WebhookDispatcherService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcherService.name);
  private readonly inFlight = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private inFlightTotal = 0;
  private pumping: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Rounds whose claim failed: one line per interval, with the count of the others. */
  private readonly roundFailures = new RateLimitedLog(
    ROUND_FAILURE_LOG_INTERVAL_MS,
    ({ detail, suppressed }) =>
      this.logger.error(
        { err: detail.err, alsoFailedSinceLastLine: suppressed },
        'Webhook claim round failed',
      ),
  );

  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    private readonly sender: WebhookSender,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
    private readonly metrics: WebhooksMetrics,
  ) {}

  /** Asks for a round soon, without waiting for it (after a change was committed). */
  kick(): void {
    if (this.stopped || !this.env.WEBHOOKS_ENABLED) return;
    // A round is nobody's request: it runs outside the caller's trace; each delivery continues
    // the trace of the change it reports.
    void runDetached(() => this.pump());
  }

  /**
   * Claims and starts due deliveries while slots are free; concurrent calls share one round.
   * Resolves when everything due was started, not when it was delivered (see settled()).
   */
  pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    // Cleared in a promise reaction, which always runs after this assignment: a round that
    // ends without awaiting anything (every slot taken) must not leave itself behind as the
    // round in progress, or no round would start again.
    const round = this.round().finally(() => {
      if (this.pumping === round) this.pumping = null;
    });
    this.pumping = round;
    return round;
  }

  private async round(): Promise<void> {
    try {
      do {
        this.again = false;
        while (!this.stopped && this.freeSlots() > 0) {
          const claimed = await this.repository.claim({
            limit: this.freeSlots(),
            leaseMs: 2 * this.env.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS,
            busy: this.busySubscriptions(),
            perSubscription: this.env.WEBHOOK_SUBSCRIPTION_CONCURRENCY,
          });
          for (const delivery of claimed) this.start(delivery);
          if (claimed.length === 0) break;
        }
      } while (this.again && !this.stopped && this.freeSlots() > 0);
    } catch (error) {
      this.roundFailed(error);
    }
  }

  /** Resolves once the deliveries in flight now have finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0 || this.pumping) {
      await Promise.all([...this.running, this.pumping]);
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
  async purgeDelivered(maxBatches = 100): Promise<number> {
    const retentionMs = this.env.WEBHOOK_RETENTION_HOURS * HOUR_MS;
    let total = 0;
    for (let i = 0; i < maxBatches && !this.stopped; i++) {
      const removed = await this.repository.purgeDelivered(retentionMs, PURGE_BATCH_SIZE);
      total += removed;
      if (removed < PURGE_BATCH_SIZE) break;
    }
    return total;
  }

  private freeSlots(): number {
    return this.env.WEBHOOK_CONCURRENCY - this.inFlightTotal;
  }

  /** Subscriptions with deliveries in flight here, and the slots each has left. */
  private busySubscriptions(): Map<string, number> {
    const cap = this.env.WEBHOOK_SUBSCRIPTION_CONCURRENCY;
    return new Map([...this.inFlight].map(([id, count]) => [id, Math.max(0, cap - count)]));
  }

  private start(delivery: ClaimedWebhookDelivery): void {
    this.inFlightTotal++;
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
        this.logger.error(
          { err: error, deliveryId: delivery.id, subscriptionId: delivery.subscriptionId },
          'Webhook delivery outcome could not be recorded',
        ),
      )
      .finally(() => {
        this.running.delete(run);
        this.inFlightTotal--;
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
      const delay = webhookRetryDelayMs(
        delivery.attempts,
        this.env.WEBHOOK_RETRY_BASE_MS,
        this.env.WEBHOOK_RETRY_MAX_MS,
      );
      state = await this.repository.settleFailure(
        delivery,
        result,
        delay,
        this.env.WEBHOOK_MAX_ATTEMPTS,
      );
      if (state === 'DEAD') {
        this.logger.warn(
          {
            deliveryId: delivery.id,
            subscriptionId: delivery.subscriptionId,
            eventId: delivery.eventId,
            attempts: delivery.attempts,
            lastError: result.error,
          },
          'Webhook delivery given up after its last attempt (redeliver it through the API)',
        );
      }
    }
    this.metrics.attempted(
      delivery.eventType,
      webhookAttemptOutcome(state),
      result.statusCode === null ? null : result.latencyMs,
    );
  }

  /**
   * The headers of one attempt: the signature over this attempt's timestamp and the body, with
   * every secret valid now, and the correlation of the change (X-Request-Id, and traceparent:
   * this delivery's span while tracing runs, else the one stored with the change).
   */
  private headersOf(
    delivery: ClaimedWebhookDelivery,
    body: string,
    timestamp: number,
  ): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      [WEBHOOK_ID_HEADER]: delivery.eventId,
      [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
      [WEBHOOK_SIGNATURE_HEADER]: webhookSignatureHeader(timestamp, body, delivery.secrets),
    };
    const current = correlationHeaders();
    const traceparent = current.traceparent ?? delivery.traceContext?.traceparent;
    if (traceparent) headers.traceparent = traceparent;
    const requestId = current[REQUEST_ID_HEADER] ?? delivery.traceContext?.[REQUEST_ID_HEADER];
    if (requestId) headers['X-Request-Id'] = requestId;
    return headers;
  }

  private roundFailed(error: unknown): void {
    this.roundFailures.report('round', { err: error });
  }

  /** Before the HTTP server closes: the deliveries in flight finish (each within its timeout); nothing new starts. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.roundFailures.flush();
    await this.settled();
  }
}
