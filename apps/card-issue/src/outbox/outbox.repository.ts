import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DeliveryStore } from '@bank/shared/delivery';
import type { ClaimedMessage, OutboxMessageState, OutboxMessageType } from './outbox-message.model';
import {
  CLAIM_OUTBOX_MESSAGES_SQL,
  MARK_OUTBOX_MESSAGE_DELIVERED_SQL,
  PURGE_SETTLED_OUTBOX_MESSAGES_SQL,
  REDELIVER_DEAD_OUTBOX_MESSAGES_SQL,
  SELECT_DEAD_OUTBOX_MESSAGES_SQL,
  SELECT_OUTBOX_BACKLOG_SQL,
  SETTLE_OUTBOX_FAILURE_SQL,
} from './outbox.sql';

/** A dead letter as an operator sees it. */
export interface DeadOutboxMessage {
  id: string;
  requestId: string;
  type: OutboxMessageType;
  attempts: number;
  lastError: string | null;
}

/**
 * Outbox storage: runs the statements of outbox.sql.ts (the backlog and the purge as every
 * delivery queue does, DeliveryStore).
 */
@Injectable()
export class OutboxRepository extends DeliveryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super(dataSource, {
      purgeSettled: PURGE_SETTLED_OUTBOX_MESSAGES_SQL,
      backlog: SELECT_OUTBOX_BACKLOG_SQL,
    });
  }

  /** Claims up to `limit` due messages under a lease, oldest first (see CLAIM_OUTBOX_MESSAGES_SQL). */
  claim(limit: number, leaseMs: number): Promise<ClaimedMessage[]> {
    return this.dataSource.query<ClaimedMessage[]>(CLAIM_OUTBOX_MESSAGES_SQL, [limit, leaseMs]);
  }

  /** In the caller's transaction when given its manager. */
  async markDelivered(id: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(MARK_OUTBOX_MESSAGE_DELIVERED_SQL, [id]);
  }

  /** Records a failed attempt; returns the state the message ends in (SETTLE_OUTBOX_FAILURE_SQL). */
  async settleFailure(
    id: string,
    delayMs: number,
    error: string,
    maxAttempts: number,
  ): Promise<OutboxMessageState> {
    const rows = await this.dataSource.query<{ state: OutboxMessageState }[]>(
      SETTLE_OUTBOX_FAILURE_SQL,
      [id, delayMs, error.slice(0, 1000), maxAttempts],
    );
    return rows[0]?.state ?? 'PENDING';
  }

  /** Dead letters back to PENDING (of one request, or all); returns how many. */
  async redeliverDead(requestId: string | null): Promise<number> {
    const [{ n }] = await this.dataSource.query<{ n: number }[]>(
      REDELIVER_DEAD_OUTBOX_MESSAGES_SQL,
      [requestId],
    );
    return n;
  }

  deadMessages(limit: number): Promise<DeadOutboxMessage[]> {
    return this.dataSource.query<DeadOutboxMessage[]>(SELECT_DEAD_OUTBOX_MESSAGES_SQL, [limit]);
  }
}
