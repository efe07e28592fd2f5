import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { OutboxMessageType, OutboxPayload } from './outbox-message.model';

/**
 * A message to the operation service, written in the same transaction as the change it
 * reports (transactional outbox) and delivered afterwards, in order per request.
 */
@Entity({ name: 'outbox_messages' })
@Index('ix_outbox_messages_pending', ['nextAttemptAt'], { where: 'delivered_at IS NULL' })
@Index('ix_outbox_messages_request', ['requestId', 'id'])
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

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
