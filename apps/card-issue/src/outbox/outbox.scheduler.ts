import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment.config';
import { OutboxService } from './outbox.service';

const DELIVERY = 'outbox-delivery';
const PURGE = 'outbox-purge';
const HOUR = 3_600_000;

/**
 * Delivers the outbox every OUTBOX_TICK_MS: picks up retries whose backoff ran out and
 * messages of other replicas or of a crashed one whose lease expired. (Fresh messages are
 * delivered at once through OutboxService.kick.) Every hour, deletes the messages settled more
 * than OUTBOX_RETENTION_HOURS ago; purges never overlap.
 */
@Injectable()
export class OutboxScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxScheduler.name);
  private purging: Promise<void> | null = null;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly outbox: OutboxService,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.env.OUTBOX_ENABLED) return;
    this.registry.addInterval(
      DELIVERY,
      setInterval(() => this.outbox.kick(), this.env.OUTBOX_TICK_MS),
    );
    this.registry.addInterval(
      PURGE,
      setInterval(() => this.purge(), HOUR),
    );
    this.outbox.kick(); // whatever a previous run left behind
  }

  private purge(): void {
    if (this.purging) return;
    this.purging = this.outbox
      .purgeSettled()
      .then((removed) => {
        if (removed) this.logger.log({ removed }, 'Purged settled outbox messages');
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'Outbox purge failed'))
      .finally(() => (this.purging = null));
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const name of [DELIVERY, PURGE]) {
      if (this.registry.doesExist('interval', name)) this.registry.deleteInterval(name);
    }
    await this.purging;
  }
}
