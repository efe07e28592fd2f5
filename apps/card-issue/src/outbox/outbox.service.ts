import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment';
import { GatewayResult } from '../integrations/gateway-result.model';
import { OperationsClient } from '../integrations/operations/operations.client';
import { ClaimedMessage, OutboxRepository } from './outbox.repository';

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
    await Promise.all(batch.map((message) => this.deliver(message)));
    return batch.length;
  }

  private async deliver(message: ClaimedMessage): Promise<void> {
    let result: GatewayResult<{ id: string }>;
    if (message.type === 'operation.create') {
      const p = message.payload as {
        cardOwner: string;
        holderUserId: string | null;
        formFactor: string;
        status: string;
      };
      result = await this.operations.createOperation({
        requestId: message.requestId,
        cardOwner: p.cardOwner,
        holderUserId: p.holderUserId,
        formFactor: p.formFactor as never,
        status: p.status as never,
      });
      if (result.kind === 'ok')
        return this.repository.markCreateDelivered(message.id, message.requestId, result.value.id);
    } else {
      if (!message.operationId) return this.retry(message, 'operation not created yet');
      const p = message.payload as { status: string; sequence: number };
      result = await this.operations.updateStatus(
        message.operationId,
        p.status as never,
        p.sequence,
      );
      if (result.kind === 'ok') return this.repository.markDelivered(message.id);
    }
    const reason =
      result.kind === 'unavailable'
        ? result.reason
        : result.kind === 'conflict'
          ? result.message
          : result.kind;
    return this.retry(message, reason);
  }

  private async retry(message: ClaimedMessage, reason: string): Promise<void> {
    const delay = Math.min(
      this.env.OUTBOX_RETRY_BASE_MS * 2 ** (message.attempts - 1),
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
