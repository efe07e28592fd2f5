import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OutboxMessageType } from './outbox-message.entity';

export interface ClaimedMessage {
  id: string;
  requestId: string;
  type: OutboxMessageType;
  payload: Record<string, unknown>;
  attempts: number;
  operationId: string | null;
}

/**
 * Outbox storage. Timing uses the database clock (now()), not the service's Clock: retries
 * and leases are about real time, and every replica agrees on it.
 */
@Injectable()
export class OutboxRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Claims up to `limit` due messages under a lease. Only the oldest undelivered message
   * of each request can be claimed, so a request's messages go out in order; SKIP LOCKED
   * lets replicas claim disjoint batches.
   */
  async claim(limit: number, leaseMs: number): Promise<ClaimedMessage[]> {
    // A top-level UPDATE would come back from TypeORM as [rows, count]; the CTE makes it a SELECT.
    return await this.dataSource.query<ClaimedMessage[]>(
      `WITH claimed AS (
       UPDATE outbox_messages m
       SET locked_until = now() + make_interval(secs => $2::double precision / 1000), attempts = m.attempts + 1
       FROM (
         SELECT o.id FROM outbox_messages o
         WHERE o.delivered_at IS NULL AND o.next_attempt_at <= now()
           AND (o.locked_until IS NULL OR o.locked_until < now())
           AND NOT EXISTS (
             SELECT 1 FROM outbox_messages e
             WHERE e.request_id = o.request_id AND e.delivered_at IS NULL AND e.id < o.id)
         ORDER BY o.id
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       ) due
       WHERE m.id = due.id
       RETURNING m.id::text AS id, m.request_id AS "requestId", m.type, m.payload, m.attempts,
                 (SELECT r.operation_id FROM card_issue_requests r WHERE r.request_id = m.request_id) AS "operationId"
       )
       SELECT * FROM claimed ORDER BY id::bigint`,
      [limit, leaseMs],
    );
  }

  async markDelivered(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE outbox_messages SET delivered_at = now(), locked_until = NULL, last_error = NULL WHERE id = $1`,
      [id],
    );
  }

  /** Records the operation id that the operation service gave the request, with the delivery itself. */
  async markCreateDelivered(id: string, requestId: string, operationId: string): Promise<void> {
    await this.dataSource.query(
      `WITH delivered AS (
         UPDATE outbox_messages SET delivered_at = now(), locked_until = NULL, last_error = NULL WHERE id = $1 RETURNING 1
       )
       UPDATE card_issue_requests SET operation_id = $3 WHERE request_id = $2`,
      [id, requestId, operationId],
    );
  }

  async scheduleRetry(id: string, delayMs: number, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE outbox_messages
       SET locked_until = NULL, last_error = $3,
           next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
       WHERE id = $1`,
      [id, delayMs, error.slice(0, 1000)],
    );
  }

  /** Messages not yet delivered (for health and tests). */
  async pendingCount(): Promise<number> {
    const rows = await this.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM outbox_messages WHERE delivered_at IS NULL`,
    );
    return rows[0].n;
  }
}
