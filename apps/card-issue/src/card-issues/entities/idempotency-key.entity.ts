import { Entity, Index } from 'typeorm';
import { IdempotencyKeyColumns } from '@bank/shared/idempotency';

/**
 * An Idempotency-Key seen on POST /api/v1/card-issue: held under a lease while its request
 * runs, then the response exactly as sent. @bank/shared/idempotency runs its statements.
 */
@Entity({ name: 'card_issue_idempotency_keys' })
@Index('ix_card_issue_idempotency_keys_created', ['createdAt'])
export class IdempotencyKey extends IdempotencyKeyColumns {}
