import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '@bank/shared/calendar';
import { IdempotencyKeys, idempotencyOptions } from '@bank/shared/idempotency';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment.config';

/** The key table of POST /api/v1/card-issue (migrations CardIssues, IdempotencyKeyLeases). */
const CARD_ISSUE_IDEMPOTENCY_TABLE = 'card_issue_idempotency_keys';

/**
 * The Idempotency-Key of POST /api/v1/card-issue, on the shared implementation
 * (@bank/shared/idempotency): leases, waiting with backoff, the response stored as sent.
 */
@Injectable()
export class IdempotencyService extends IdempotencyKeys {
  constructor(
    @InjectDataSource() dataSource: DataSource,
    clock: Clock,
    @Inject(ENVIRONMENT) env: CardIssueEnvironment,
  ) {
    super(dataSource, idempotencyOptions(CARD_ISSUE_IDEMPOTENCY_TABLE, env), () => clock.now());
  }
}
