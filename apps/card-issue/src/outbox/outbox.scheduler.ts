import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ENVIRONMENT } from '@bank/shared/nest';
import { CardIssueEnvironment } from '../config/environment.config';
import { OutboxService } from './outbox.service';

const DELIVERY = 'outbox-delivery';

/**
 * Delivers the outbox every OUTBOX_TICK_MS: picks up retries whose backoff ran out and
 * messages of other replicas or of a crashed one whose lease expired. (Fresh messages are
 * delivered at once through OutboxService.kick.)
 */
@Injectable()
export class OutboxScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
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
    this.outbox.kick(); // whatever a previous run left behind
  }

  beforeApplicationShutdown(): void {
    if (this.registry.doesExist('interval', DELIVERY)) this.registry.deleteInterval(DELIVERY);
  }
}
