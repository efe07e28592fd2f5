import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '@bank/shared/calendar';
import { IdempotencyClaim, IdempotencyKeys } from '@bank/shared/idempotency';
import { ENVIRONMENT } from '@bank/shared/nest';
import { ClientRegistrationEnvironment } from '../config/environment.config';

/** The key table of POST /api/clients (migration CreateClientIdempotencyKeys). */
export const CLIENT_IDEMPOTENCY_TABLE = 'client_idempotency_keys';

/**
 * The Idempotency-Key of POST /api/clients, on the implementation card-issue uses too
 * (@bank/shared/idempotency): leases, waiting with backoff, the response stored as sent.
 */
@Injectable()
export class ClientsIdempotencyService {
  private readonly keys: IdempotencyKeys;

  constructor(
    dataSource: DataSource,
    clock: Clock,
    @Inject(ENVIRONMENT) env: ClientRegistrationEnvironment,
  ) {
    this.keys = new IdempotencyKeys(
      dataSource,
      {
        table: CLIENT_IDEMPOTENCY_TABLE,
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
