import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { CorrelationHeaders } from '@bank/shared/tracing';
import type { OutboxMessageState, OutboxMessageType, OutboxPayload } from './outbox-message.model';

/**
 * A message to the operation service, written in the same transaction as the change it
 * reports (transactional outbox) and delivered afterwards, in order per request.
 */
@Entity({ name: 'outbox_messages' })
@Index('ix_outbox_messages_due', ['nextAttemptAt', 'id'], { where: "state = 'PENDING'" })
@Index('ix_outbox_messages_open', ['requestId', 'id'], { where: "state IN ('PENDING','DEAD')" })
@Index('ix_outbox_messages_settled', ['settledAt'], {
  where: "state IN ('DELIVERED','SUPERSEDED')",
})
@Check('ck_outbox_messages_state', "state IN ('PENDING','DELIVERED','SUPERSEDED','DEAD')")
export class OutboxMessage {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'request_id', type: 'varchar', length: 20 })
  requestId!: string;

  @Column({ type: 'varchar', length: 32 })
  type!: OutboxMessageType;

  /** The shape that goes with `type` (OutboxPayload). */
  @Column({ type: 'jsonb' })
  payload!: OutboxPayload['payload'];

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt!: Date;

  /** A worker that claimed the message holds it until then (a lease, so a crash only delays it). */
  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil!: Date | null;

  /**
   * PENDING until delivered (DELIVERED), made moot by a newer status of the same request
   * (SUPERSEDED), or given up after OUTBOX_MAX_ATTEMPTS (DEAD, until an operator redelivers it).
   */
  @Column({ type: 'varchar', length: 12, default: 'PENDING' })
  state!: OutboxMessageState;

  /** When it left PENDING; DELIVERED and SUPERSEDED rows are purged after OUTBOX_RETENTION_HOURS. */
  @Column({ name: 'settled_at', type: 'timestamptz', nullable: true })
  settledAt!: Date | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  /**
   * The trace context and request id of the change that wrote the message, as headers
   * ({traceparent, tracestate, x-request-id}): its delivery continues that trace under that id.
   */
  @Column({ name: 'trace_context', type: 'jsonb', nullable: true })
  traceContext!: CorrelationHeaders | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
