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
import { DeliveryLoop } from './delivery-loop';
import { OutboxService } from './outbox.service';

/**
 * Delivers the outbox every OUTBOX_TICK_MS (retries whose backoff ran out, messages whose lease
 * expired; fresh messages go at once through OutboxService.kick) and, every hour, deletes the
 * messages settled more than OUTBOX_RETENTION_HOURS ago.
 */
@Injectable()
export class OutboxScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly loop: DeliveryLoop;

  constructor(
    registry: SchedulerRegistry,
    outbox: OutboxService,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {
    this.loop = new DeliveryLoop(registry, new Logger(OutboxScheduler.name), {
      name: 'outbox',
      tickMs: env.OUTBOX_TICK_MS,
      kick: () => outbox.kick(),
      purge: () => outbox.purgeSettled(),
      purged: 'Purged settled outbox messages',
      purgeFailed: 'Outbox purge failed',
    });
  }

  onApplicationBootstrap(): void {
    if (this.env.OUTBOX_ENABLED) this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }
}
