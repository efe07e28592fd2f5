import { Inject, Injectable, Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DeliveryQueue, DeliveryService } from '@bank/shared/delivery';
import { ENVIRONMENT } from '@bank/shared/nest';
import { continueTrace, failCurrentSpan } from '@bank/shared/tracing';
import { CardIssuesRepository } from '../card-issues/card-issues.repository';
import { CardIssueEnvironment } from '../config/environment.config';
import { failureReasonOf } from '../integrations/gateway-result.model';
import { OperationsClient } from '../integrations/operations/operations.client';
import { ClaimedMessage, OutboxMessageState } from './outbox-message.model';
import { OutboxRepository } from './outbox.repository';
import { OutboxMetrics, outboxTypeLabel } from './outbox.metrics';

/** What became of one claimed message. */
type Outcome =
  { kind: 'delivered' } | { kind: 'failed'; reason: string; state: OutboxMessageState };

type ClaimedCreate = Extract<ClaimedMessage, { type: 'operation.create' }>;
type ClaimedStatus = Extract<ClaimedMessage, { type: 'operation.status' }>;

/**
 * Delivers outbox messages to the operation service, as a DeliveryQueue (@bank/shared/delivery):
 * claimed in batches under a lease, sent concurrently across requests (in order within one),
 * retried with exponential backoff while the service is unavailable, given up as DEAD after
 * OUTBOX_MAX_ATTEMPTS (the outbox:redeliver command brings them back). A round every
 * OUTBOX_TICK_MS picks up retries whose backoff ran out and messages whose lease expired (fresh
 * messages go at once through kick); every hour the messages settled more than
 * OUTBOX_RETENTION_HOURS ago are deleted. The operation service treats a repeated create (same
 * requestId) and a stale status (lower sequence) as no-ops, so a message delivered twice after a
 * crash changes nothing, and a status superseded by a newer one need not be sent at all.
 *
 * Logging follows failures, not messages: one line per batch that had failed deliveries (with
 * the count per reason), one per batch that gave messages up, and one per interval for rounds
 * that could not claim at all.
 */
@Injectable()
export class OutboxService extends DeliveryService {
  private readonly logger = new Logger(OutboxService.name);
  protected override readonly queue: DeliveryQueue;

  constructor(
    private readonly repository: OutboxRepository,
    private readonly cardIssues: CardIssuesRepository,
    private readonly operations: OperationsClient,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
    private readonly metrics: OutboxMetrics,
    registry: SchedulerRegistry,
  ) {
    super();
    this.queue = new DeliveryQueue(registry, this.logger, {
      name: 'outbox',
      enabled: env.OUTBOX_ENABLED,
      tickMs: env.OUTBOX_TICK_MS,
      step: async () => (await this.deliverBatch()) > 0,
      retry: { baseMs: env.OUTBOX_RETRY_BASE_MS, maxMs: env.OUTBOX_RETRY_MAX_MS, jitter: false },
      store: repository,
      retentionHours: env.OUTBOX_RETENTION_HOURS,
      purgeBatchSize: env.OUTBOX_PURGE_BATCH_SIZE,
      failureLogIntervalMs: env.ERROR_LOG_INTERVAL_MS,
      lines: {
        roundFailed: 'Outbox delivery round failed',
        purged: 'Purged settled outbox messages',
        purgeFailed: 'Outbox purge failed',
      },
    });
  }

  /**
   * Delivers due messages until none is left; concurrent calls share one round. A round whose
   * claim fails ends there (the next kick or tick tries again), rejects, and is logged.
   */
  drain(): Promise<void> {
    return this.queue.run();
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
        outboxTypeLabel(batch[i].type),
        outcome.kind === 'delivered' ? 'DELIVERED' : outcome.state,
      ),
    );
    this.logFailures(batch, outcomes);
    return batch.length;
  }

  /**
   * Deletes the messages DELIVERED or SUPERSEDED more than OUTBOX_RETENTION_HOURS ago, batch
   * after batch (bounded, so one run cannot hold the scheduler forever); returns how many.
   */
  purgeSettled(maxBatches?: number): Promise<number> {
    return this.queue.purgeSettled(maxBatches);
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
    const state = await this.repository.settleFailure(
      message.id,
      this.queue.retryDelayMs(message.attempts),
      reason,
      this.env.OUTBOX_MAX_ATTEMPTS,
    );
    return { kind: 'failed', reason, state };
  }
}
