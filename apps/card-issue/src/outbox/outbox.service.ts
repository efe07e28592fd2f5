import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { ENVIRONMENT } from '@bank/shared/nest';
import { RateLimitedLog } from '@bank/shared/logging';
import { continueTrace, failCurrentSpan, runDetached } from '@bank/shared/tracing';
import { CardIssuesRepository } from '../card-issues/card-issues.repository';
import { CardIssueEnvironment } from '../config/environment.config';
import { failureReasonOf } from '../integrations/gateway-result.model';
import { OperationsClient } from '../integrations/operations/operations.client';
import { outboxRetryDelayMs } from './outbox.backoff';
import { ClaimedMessage, OutboxMessageState } from './outbox-message.model';
import { OutboxRepository } from './outbox.repository';
import { deliveryOutcome, OutboxMetrics } from './outbox.metrics';

const HOUR_MS = 3_600_000;
/** A failed round (the claim itself failing) is logged at most once per this interval. */
const ROUND_FAILURE_LOG_INTERVAL_MS = 10_000;

/** What became of one claimed message. */
type Outcome =
  { kind: 'delivered' } | { kind: 'failed'; reason: string; state: OutboxMessageState };

type ClaimedCreate = Extract<ClaimedMessage, { type: 'operation.create' }>;
type ClaimedStatus = Extract<ClaimedMessage, { type: 'operation.status' }>;

/**
 * Delivers outbox messages to the operation service: claimed in batches under a lease,
 * sent concurrently across requests (in order within one), retried with exponential
 * backoff while the service is unavailable, given up as DEAD after OUTBOX_MAX_ATTEMPTS
 * (redeliverDead brings them back). The operation service treats a repeated create (same
 * requestId) and a stale status (lower sequence) as no-ops, so a message delivered twice after
 * a crash changes nothing, and a status superseded by a newer one need not be sent at all.
 *
 * Logging follows failures, not messages: one line per batch that had failed deliveries (with
 * the count per reason), one per batch that gave messages up, and one per interval for rounds
 * that could not claim at all.
 */
@Injectable()
export class OutboxService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxService.name);
  private draining: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Rounds whose claim failed: one line per interval, with the count of the others. */
  private readonly roundFailures = new RateLimitedLog(
    ROUND_FAILURE_LOG_INTERVAL_MS,
    ({ detail, suppressed }) =>
      this.logger.error(
        { err: detail.err, alsoFailedSinceLastLine: suppressed },
        'Outbox delivery round failed',
      ),
  );

  constructor(
    private readonly repository: OutboxRepository,
    private readonly cardIssues: CardIssuesRepository,
    private readonly operations: OperationsClient,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
    private readonly metrics: OutboxMetrics,
  ) {}

  /** Asks for a delivery round soon, without waiting for it (after a change was committed). */
  kick(): void {
    if (this.stopped || !this.env.OUTBOX_ENABLED) return;
    // drain() logs a failed round itself, once for all the callers sharing it. The round is
    // no single request's (it is shared, and delivers other requests' messages): it runs outside
    // the caller's trace and request id; each delivery continues its own message's.
    void runDetached(() => this.drain()).catch(() => undefined);
  }

  /**
   * Delivers due messages until none is left; concurrent calls share one round. A round whose
   * claim fails ends there (the next kick or tick tries again) and is logged by roundFailed.
   */
  drain(): Promise<void> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = (async () => {
      try {
        do {
          this.again = false;
          while (!this.stopped && (await this.deliverBatch()) > 0) {
            // keep going while batches come back non-empty
          }
        } while (this.again && !this.stopped);
      } catch (error) {
        this.roundFailed(error);
        throw error;
      } finally {
        this.draining = null;
      }
    })();
    return this.draining;
  }

  /** Claims and delivers one batch; returns how many messages it claimed. */
  async deliverBatch(): Promise<number> {
    const batch = await this.repository.claim(this.env.OUTBOX_BATCH_SIZE, this.env.OUTBOX_LEASE_MS);
    const statuses = batch.filter((message) => message.type === 'operation.status');
    // A status message is claimable only once its request's create was delivered, which
    // records the operation id in the same transaction: the id is there when it is read.
    const operationIds = statuses.length
      ? await this.cardIssues.operationIdsOf(statuses.map((message) => message.requestId))
      : new Map<string, string | null>();
    const outcomes = await Promise.all(
      batch.map((message) =>
        // A span in the trace of the request that wrote the message, under its request id.
        continueTrace(
          message.traceContext,
          `outbox deliver ${message.type}`,
          {
            'outbox.message.id': message.id,
            'outbox.message.type': message.type,
            'outbox.attempt': message.attempts,
            'card_issue.request_id': message.requestId,
          },
          () =>
            message.type === 'operation.create'
              ? this.deliverCreate(message)
              : this.deliverStatus(message, operationIds.get(message.requestId) ?? null),
        ),
      ),
    );
    outcomes.forEach((outcome, i) =>
      this.metrics.attempted(
        batch[i].type,
        deliveryOutcome(outcome.kind === 'delivered' ? 'DELIVERED' : outcome.state),
      ),
    );
    this.logFailures(batch, outcomes);
    return batch.length;
  }

  /**
   * Deletes the messages DELIVERED or SUPERSEDED more than OUTBOX_RETENTION_HOURS ago, batch
   * after batch (bounded, so one run cannot hold the scheduler forever); returns how many.
   */
  async purgeSettled(maxBatches = 100): Promise<number> {
    const retentionMs = this.env.OUTBOX_RETENTION_HOURS * HOUR_MS;
    let total = 0;
    for (let i = 0; i < maxBatches && !this.stopped; i++) {
      const removed = await this.repository.purgeSettled(
        retentionMs,
        this.env.OUTBOX_PURGE_BATCH_SIZE,
      );
      total += removed;
      if (removed < this.env.OUTBOX_PURGE_BATCH_SIZE) break;
    }
    return total;
  }

  private logFailures(batch: ClaimedMessage[], outcomes: Outcome[]): void {
    const reasons: Record<string, number> = {};
    const dead: { messageId: string; requestId: string; type: string }[] = [];
    let failed = 0;
    outcomes.forEach((outcome, i) => {
      if (outcome.kind !== 'failed') return;
      failed++;
      reasons[outcome.reason] = (reasons[outcome.reason] ?? 0) + 1;
      const message = batch[i];
      if (outcome.state === 'DEAD')
        dead.push({ messageId: message.id, requestId: message.requestId, type: message.type });
    });
    if (failed)
      this.logger.warn(
        { failed, claimed: batch.length, reasons },
        'Outbox deliveries failed; retried with backoff',
      );
    if (dead.length)
      this.logger.error(
        {
          dead: dead.length,
          messages: dead.slice(0, 20),
          maxAttempts: this.env.OUTBOX_MAX_ATTEMPTS,
        },
        'Outbox messages given up after their last attempt (dead letters; see outbox:redeliver)',
      );
  }

  private roundFailed(error: unknown): void {
    this.roundFailures.report('round', { err: error });
  }

  private async deliverCreate(message: ClaimedCreate): Promise<Outcome> {
    const { cardOwner, holderUserId, formFactor, status } = message.payload;
    const result = await this.operations.createOperation({
      requestId: message.requestId,
      cardOwner,
      holderUserId,
      formFactor,
      status,
    });
    if (result.kind !== 'ok') return this.retry(message, failureReasonOf(result));
    // The operation id and the delivery are recorded together, so a status message never
    // goes out while the id it needs is missing.
    const operationId = result.value.id;
    await this.cardIssues.transaction(async (manager) => {
      await this.repository.markDelivered(message.id, manager);
      await this.cardIssues.recordOperationId(manager, message.requestId, operationId);
    });
    return { kind: 'delivered' };
  }

  private async deliverStatus(
    message: ClaimedStatus,
    operationId: string | null,
  ): Promise<Outcome> {
    if (!operationId) return this.retry(message, 'operation not created yet');
    const result = await this.operations.updateStatus(
      operationId,
      message.payload.status,
      message.payload.sequence,
    );
    if (result.kind !== 'ok') return this.retry(message, failureReasonOf(result));
    await this.repository.markDelivered(message.id);
    return { kind: 'delivered' };
  }

  private async retry(message: ClaimedMessage, reason: string): Promise<Outcome> {
    failCurrentSpan(reason);
    const delay = outboxRetryDelayMs(
      message.attempts,
      this.env.OUTBOX_RETRY_BASE_MS,
      this.env.OUTBOX_RETRY_MAX_MS,
    );
    const state = await this.repository.settleFailure(
      message.id,
      delay,
      reason,
      this.env.OUTBOX_MAX_ATTEMPTS,
    );
    return { kind: 'failed', reason, state };
  }

  /** Before the HTTP server closes: lets the delivery in flight finish; nothing new starts. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.roundFailures.flush();
    await this.draining?.catch(() => undefined);
  }
}
