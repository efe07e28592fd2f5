import { Entity, Index } from 'typeorm';
import { IdempotencyKeyColumns } from '@bank/shared/idempotency';

/**
 * An Idempotency-Key seen on POST /api/clients: held under a lease while its request
 * runs, then the response exactly as sent. @bank/shared/idempotency runs its statements.
 */
@Entity({ name: 'client_idempotency_keys' })
@Index('ix_client_idempotency_keys_created', ['createdAt'])
export class ClientIdempotencyKeyEntity extends IdempotencyKeyColumns {}
