import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '@bank/shared/calendar';
import { IdempotencyClaim, IdempotencyKeys } from '@bank/shared/idempotency';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment.config';

/** The key table of POST /api/v1/card-issue (migrations CardIssues, IdempotencyKeyLeases). */
export const CARD_ISSUE_IDEMPOTENCY_TABLE = 'card_issue_idempotency_keys';

/**
 * The Idempotency-Key of POST /api/v1/card-issue, on the shared implementation
 * (@bank/shared/idempotency): leases, waiting with backoff, the response stored as sent.
 */
@Injectable()
export class IdempotencyService {
  private readonly keys: IdempotencyKeys;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    clock: Clock,
    @Inject(ENVIRONMENT) env: CardIssueEnvironment,
  ) {
    this.keys = new IdempotencyKeys(
      dataSource,
      {
        table: CARD_ISSUE_IDEMPOTENCY_TABLE,
        leaseMs: env.IDEMPOTENCY_LEASE_MS,
        waitMs: env.IDEMPOTENCY_WAIT_MS,
        ttlHours: env.IDEMPOTENCY_KEY_TTL_HOURS,
      },
      () => clock.now(),
    );
  }

  /** Takes the key for a request with this body (see IdempotencyKeys.claim). */
  claim(key: string, body: unknown): Promise<IdempotencyClaim> {
    return this.keys.claim(key, body);
  }

  /** Forgets the keys older than IDEMPOTENCY_KEY_TTL_HOURS; returns how many. */
  purgeExpired(): Promise<number> {
    return this.keys.purgeExpired();
  }
}
