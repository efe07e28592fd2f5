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
import { WebhookDispatcherService } from './webhook-dispatcher.service';

const DELIVERY = 'webhook-delivery';
const PURGE = 'webhook-purge';
const HOUR = 3_600_000;

/**
 * Timed entry points of the webhook delivery: a round every WEBHOOK_TICK_MS picks up retries
 * whose backoff ran out and deliveries whose lease expired (a replica that died); fresh events
 * go at once through WebhookDispatcherService.kick. Every hour, deletes the deliveries
 * delivered more than WEBHOOK_RETENTION_HOURS ago; purges never overlap.
 */
@Injectable()
export class WebhooksScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhooksScheduler.name);
  private purging: Promise<void> | null = null;

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly dispatcher: WebhookDispatcherService,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.env.WEBHOOKS_ENABLED) {
      this.logger.log('Webhook delivery is off (WEBHOOKS_ENABLED=false); events wait');
      return;
    }
    this.registry.addInterval(
      DELIVERY,
      setInterval(() => this.dispatcher.kick(), this.env.WEBHOOK_TICK_MS),
    );
    this.registry.addInterval(
      PURGE,
      setInterval(() => this.purge(), HOUR),
    );
    this.dispatcher.kick(); // whatever a previous run left behind
  }

  private purge(): void {
    if (this.purging) return;
    this.purging = this.dispatcher
      .purgeDelivered()
      .then((removed) => {
        if (removed) this.logger.log({ removed }, 'Purged delivered webhook deliveries');
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'Webhook purge failed'))
      .finally(() => (this.purging = null));
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const name of [DELIVERY, PURGE]) {
      if (this.registry.doesExist('interval', name)) this.registry.deleteInterval(name);
    }
    await this.purging;
  }
}
