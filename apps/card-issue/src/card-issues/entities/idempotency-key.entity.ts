import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An Idempotency-Key seen on POST /api/v1/card-issue, with the response it produced. */
@Entity({ name: 'card_issue_idempotency_keys' })
@Index('ix_card_issue_idempotency_keys_created', ['createdAt'])
export class IdempotencyKey {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  /** sha256 of the canonical request body: the same key with another body is a conflict. */
  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash!: string;

  /** Null while the first request with this key is still being processed. */
  @Column({ type: 'jsonb', nullable: true })
  response!: Record<string, unknown> | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
