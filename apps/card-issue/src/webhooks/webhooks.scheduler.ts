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
import { DeliveryLoop } from '../outbox/delivery-loop';
import { WebhookDispatcherService } from './webhook-dispatcher.service';

/**
 * Timed entry points of the webhook delivery: a round every WEBHOOK_TICK_MS picks up retries
 * whose backoff ran out and deliveries whose lease expired (a replica that died); fresh events
 * go at once through WebhookDispatcherService.kick. Every hour, deletes the deliveries
 * delivered more than WEBHOOK_RETENTION_HOURS ago.
 */
@Injectable()
export class WebhooksScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhooksScheduler.name);
  private readonly loop: DeliveryLoop;

  constructor(
    registry: SchedulerRegistry,
    dispatcher: WebhookDispatcherService,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {
    this.loop = new DeliveryLoop(registry, this.logger, {
      name: 'webhook',
      tickMs: env.WEBHOOK_TICK_MS,
      kick: () => dispatcher.kick(),
      purge: () => dispatcher.purgeDelivered(),
      purged: 'Purged delivered webhook deliveries',
      purgeFailed: 'Webhook purge failed',
    });
  }

  onApplicationBootstrap(): void {
    if (!this.env.WEBHOOKS_ENABLED) {
      this.logger.log('Webhook delivery is off (WEBHOOKS_ENABLED=false); events wait');
      return;
    }
    this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }
}
