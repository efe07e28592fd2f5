import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '@bank/shared/calendar';
import { IdempotencyKeys, idempotencyOptions } from '@bank/shared/idempotency';
import { ENVIRONMENT } from '@bank/shared/nest';
import { ClientRegistrationEnvironment } from '../config/environment.config';

/** The key table of POST /api/clients (migration CreateClientIdempotencyKeys). */
const CLIENT_IDEMPOTENCY_TABLE = 'client_idempotency_keys';

/**
 * The Idempotency-Key of POST /api/clients, on the implementation card-issue uses too
 * (@bank/shared/idempotency): leases, waiting with backoff, the response stored as sent.
 */
@Injectable()
export class ClientsIdempotencyService extends IdempotencyKeys {
  constructor(
    dataSource: DataSource,
    clock: Clock,
    @Inject(ENVIRONMENT) env: ClientRegistrationEnvironment,
  ) {
    super(dataSource, idempotencyOptions(CLIENT_IDEMPOTENCY_TABLE, env), () => clock.now());
  }
}
