import { DomainError } from '@bank/shared/errors';

export class WebhookSubscriptionNotFoundError extends DomainError {
  readonly code = 'WEBHOOK_SUBSCRIPTION_NOT_FOUND';
  readonly httpStatus = 404;

  constructor(readonly subscriptionId: string) {
    super(`Webhook subscription ${subscriptionId} not found`);
  }
}

export class WebhookDeliveryNotFoundError extends DomainError {
  readonly code = 'WEBHOOK_DELIVERY_NOT_FOUND';
  readonly httpStatus = 404;

  constructor(subscriptionId: string, deliveryId: string) {
    super(`Webhook delivery ${deliveryId} of subscription ${subscriptionId} not found`);
  }
}

/** Only a dead-lettered delivery can be redelivered; a PENDING one is on its way, a DELIVERED one arrived. */
export class WebhookDeliveryNotDeadError extends DomainError {
  readonly code = 'WEBHOOK_DELIVERY_NOT_DEAD';
  readonly httpStatus = 409;

  constructor(deliveryId: string) {
    super(
      `Webhook delivery ${deliveryId} is not DEAD; only a dead-lettered delivery can be redelivered`,
    );
  }
}

/** WEBHOOK_MAX_SUBSCRIPTIONS exist already (disabled ones count): one must go first. */
export class WebhookSubscriptionLimitError extends DomainError {
  readonly code = 'WEBHOOK_SUBSCRIPTION_LIMIT_REACHED';
  readonly httpStatus = 409;

  constructor(readonly limit: number) {
    super(
      `There may be at most ${limit} webhook subscriptions, disabled ones included; delete one before creating another`,
    );
  }
}
