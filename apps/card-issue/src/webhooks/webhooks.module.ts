import { Module } from '@nestjs/common';
import { ENVIRONMENT } from '@bank/shared/nest';
import { parseCidrList, WebhookTargetPolicy } from '@bank/shared/webhooks';
import { CardIssueEnvironment } from '../config/environment.config';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDispatcherService } from './webhook-dispatcher.service';
import { WebhookSender } from './webhook-sender';
import { WebhooksMetrics } from './webhooks.metrics';
// --- subscriptions API (helper API) ---
import { WebhookSubscriptionsController } from './webhook-subscriptions.controller';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
// --- end of subscriptions API ---

/**
 * Signed webhooks of card issue status changes (docs/webhooks.md): the subscriptions API and
 * the delivery of events. The card issue statements write the events (card-issues.sql.ts);
 * CardIssuesModule imports this module to kick the dispatcher after a change.
 */
@Module({
  controllers: [
    // --- subscriptions API (helper API) ---
    WebhookSubscriptionsController,
    // --- end of subscriptions API ---
  ],
  providers: [
    // --- delivery (helper DELIVERY) ---
    {
      // One policy for the subscription API and the sender: the same rules at write and at send.
      provide: WebhookTargetPolicy,
      inject: [ENVIRONMENT],
      useFactory: (env: CardIssueEnvironment) =>
        new WebhookTargetPolicy({
          production: env.NODE_ENV === 'production',
          allowedCidrs: parseCidrList(env.WEBHOOK_ALLOWED_TARGET_CIDRS),
        }),
    },
    WebhookDeliveriesRepository,
    WebhookSender,
    WebhooksMetrics,
    WebhookDispatcherService,
    // --- end of delivery ---
    // --- subscriptions API (helper API) ---
    WebhookSubscriptionsRepository,
    WebhookSubscriptionsService,
    // --- end of subscriptions API ---
  ],
  exports: [
    // --- delivery (helper DELIVERY) ---
    WebhookTargetPolicy,
    WebhookDeliveriesRepository,
    WebhookDispatcherService,
    // --- end of delivery ---
  ],
})
export class WebhooksModule {}
