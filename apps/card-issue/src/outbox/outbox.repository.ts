import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { ClaimedMessage } from './outbox-message.model';
import {
  CLAIM_OUTBOX_MESSAGES_SQL,
  MARK_OUTBOX_MESSAGE_DELIVERED_SQL,
  SCHEDULE_OUTBOX_RETRY_SQL,
} from './outbox.sql';

/** Outbox storage: runs the statements of outbox.sql.ts. */
@Injectable()
export class OutboxRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Claims up to `limit` due messages under a lease, oldest first (see CLAIM_OUTBOX_MESSAGES_SQL). */
  claim(limit: number, leaseMs: number): Promise<ClaimedMessage[]> {
    return this.dataSource.query<ClaimedMessage[]>(CLAIM_OUTBOX_MESSAGES_SQL, [limit, leaseMs]);
  }

  /** In the caller's transaction when given its manager. */
  async markDelivered(id: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(MARK_OUTBOX_MESSAGE_DELIVERED_SQL, [id]);
  }

  async scheduleRetry(id: string, delayMs: number, error: string): Promise<void> {
    await this.dataSource.query(SCHEDULE_OUTBOX_RETRY_SQL, [id, delayMs, error.slice(0, 1000)]);
  }
}
