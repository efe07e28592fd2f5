import { Module } from '@nestjs/common';
// --- Subscriptions API (helper API) ---
import { WebhookSubscriptionsController } from './webhook-subscriptions.controller';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
// --- end subscriptions API ---

/** Signed webhooks (docs/webhooks.md): the subscriptions API and the delivery of events. */
@Module({
  controllers: [
    // --- Subscriptions API ---
    WebhookSubscriptionsController,
  ],
  providers: [
    // --- Subscriptions API ---
    WebhookSubscriptionsRepository,
    WebhookSubscriptionsService,
  ],
})
export class WebhooksModule {}
