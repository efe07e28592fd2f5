import { Column, PrimaryColumn } from 'typeorm';

/**
 * The columns of a service's Idempotency-Key table (the statements are idempotency-keys.sql.ts).
 * Each service declares its own entity on its own table by extending this class.
 */
export abstract class IdempotencyKeyColumns {
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

/** The configuration both services validate (libs/shared/config BaseEnvironment). */
export interface IdempotencySettings {
  IDEMPOTENCY_LEASE_MS: number;
  IDEMPOTENCY_WAIT_MS: number;
  IDEMPOTENCY_KEY_TTL_HOURS: number;
}
