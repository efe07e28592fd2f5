import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssuesRepository } from '../card-issues/card-issues.repository';
import { CardIssueEnvironment } from '../config/environment.config';
import { failureReasonOf } from '../integrations/gateway-result.model';
import { OperationsClient } from '../integrations/operations/operations.client';
import { outboxRetryDelayMs } from './outbox.backoff';
import { ClaimedMessage } from './outbox-message.model';
import { OutboxRepository } from './outbox.repository';

type ClaimedCreate = Extract<ClaimedMessage, { type: 'operation.create' }>;
type ClaimedStatus = Extract<ClaimedMessage, { type: 'operation.status' }>;

/**
 * Delivers outbox messages to the operation service: claimed in batches under a lease,
 * sent concurrently across requests (in order within one), retried with exponential
 * backoff while the service is unavailable. The operation service treats a repeated
 * create (same requestId) and a stale status (lower sequence) as no-ops, so a message
 * delivered twice after a crash changes nothing.
 */
@Injectable()
export class OutboxService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxService.name);
  private draining: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly repository: OutboxRepository,
    private readonly cardIssues: CardIssuesRepository,
    private readonly operations: OperationsClient,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {}

  /** Asks for a delivery round soon, without waiting for it (after a change was committed). */
  kick(): void {
    if (this.stopped || !this.env.OUTBOX_ENABLED) return;
    void this.drain().catch((error: unknown) =>
      this.logger.error({ err: error }, 'Outbox delivery failed'),
    );
  }

  /** Delivers due messages until none is left; concurrent calls share one round. */
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
    await Promise.all(
      batch.map((message) =>
        message.type === 'operation.create'
          ? this.deliverCreate(message)
          : this.deliverStatus(message, operationIds.get(message.requestId) ?? null),
      ),
    );
    return batch.length;
  }

  private async deliverCreate(message: ClaimedCreate): Promise<void> {
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
  }

  private async deliverStatus(message: ClaimedStatus, operationId: string | null): Promise<void> {
    if (!operationId) return this.retry(message, 'operation not created yet');
    const result = await this.operations.updateStatus(
      operationId,
      message.payload.status,
      message.payload.sequence,
    );
    if (result.kind !== 'ok') return this.retry(message, failureReasonOf(result));
    await this.repository.markDelivered(message.id);
  }

  private async retry(message: ClaimedMessage, reason: string): Promise<void> {
    const delay = outboxRetryDelayMs(
      message.attempts,
      this.env.OUTBOX_RETRY_BASE_MS,
      this.env.OUTBOX_RETRY_MAX_MS,
    );
    this.logger.warn(
      { messageId: message.id, requestId: message.requestId, attempts: message.attempts, reason },
      'Outbox delivery will be retried',
    );
    await this.repository.scheduleRetry(message.id, delay, reason);
  }

  /** Before the HTTP server closes: lets the delivery in flight finish; nothing new starts. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.draining?.catch(() => undefined);
  }
}
