import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { databaseOutage } from '@bank/shared/database';
import { FailureLog } from '@bank/shared/logging';
import { ENVIRONMENT } from '@bank/shared/nest';
import { ClientRegistrationEnvironment } from '../config/environment.config';
import { ClientsIdempotencyService } from './clients-idempotency.service';

const HOUR = 3_600_000;

/** Timed entry point only: forgets expired idempotency keys every hour (SCHEDULER_ENABLED). */
@Injectable()
export class ClientsIdempotencyScheduler
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger(ClientsIdempotencyScheduler.name);
  /** A cleanup that fails every time (the database out of reach) is one line per interval. */
  private readonly failures: FailureLog;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly idempotency: ClientsIdempotencyService,
    @Inject(ENVIRONMENT) private readonly env: ClientRegistrationEnvironment,
  ) {
    this.failures = new FailureLog(this.logger, env.ERROR_LOG_INTERVAL_MS, databaseOutage);
  }

  onApplicationBootstrap(): void {
    if (!this.env.SCHEDULER_ENABLED) return;
    this.timer = setInterval(() => this.cleanup(), HOUR);
    this.timer.unref();
  }

  cleanup(): void {
    if (this.inFlight) return;
    this.inFlight = this.idempotency
      .purgeExpired()
      .then((removed) => {
        if (removed) this.logger.log({ removed }, 'Removed expired idempotency keys');
      })
      .catch((error: unknown) => this.failures.report('Scheduled work failed', error))
      .finally(() => (this.inFlight = null));
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.inFlight;
    this.failures.flush();
  }
}
