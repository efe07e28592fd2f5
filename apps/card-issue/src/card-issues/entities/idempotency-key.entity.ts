import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An Idempotency-Key seen on POST /api/v1/card-issue: held under a lease while its request
 * runs, then the response exactly as sent. @bank/shared/idempotency runs its statements.
 */
@Entity({ name: 'card_issue_idempotency_keys' })
@Index('ix_card_issue_idempotency_keys_created', ['createdAt'])
export class IdempotencyKey {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  /** sha256 of the canonical request body: the same key with another body is a conflict. */
  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash!: string;

  /** The request holding the key; null once its response is stored. */
  @Column({ type: 'uuid', nullable: true })
  holder!: string | null;

  /** End of the holder's lease (database clock); another request may take the key over after it. */
  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil!: Date | null;

  @Column({ name: 'response_status', type: 'smallint', nullable: true })
  responseStatus!: number | null;

  /** The response body exactly as sent, replayed byte for byte; null while in progress. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
