import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { RequestValidationError } from '@bank/shared/errors';
import { ENVIRONMENT } from '@bank/shared/nest';
import { generateWebhookSecret, WebhookTargetPolicy } from '@bank/shared/webhooks';
import { CardIssueEnvironment } from '../config/environment.config';
import {
  CreateWebhookSubscriptionDto,
  UpdateWebhookSubscriptionDto,
} from './dto/webhook-subscription-request.dto';
import {
  CreatedWebhookSubscriptionDto,
  RotatedWebhookSecretDto,
  WebhookSubscriptionDto,
} from './dto/webhook-subscription-response.dto';
import {
  WebhookDeliveryNotDeadError,
  WebhookDeliveryNotFoundError,
  WebhookSubscriptionLimitError,
  WebhookSubscriptionNotFoundError,
} from './webhook-subscriptions.errors';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import {
  WebhookDeliveriesRepository,
  WebhookDeliveryLogEntry,
} from './webhook-deliveries.repository';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto';
import { WebhookDeliveriesQueryDto } from './dto/webhook-list-query.dto';

/**
 * The subscriptions API: who receives which events where. The URL is checked against the
 * target policy here (a 400 naming the rule) and again by the sender at every delivery, where
 * the addresses a name resolves to are checked too (docs/webhooks.md "Safety").
 */
@Injectable()
export class WebhookSubscriptionsService {
  constructor(
    private readonly repository: WebhookSubscriptionsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    /** The sender's own policy (WebhooksModule): the same rules when written and when sent. */
    private readonly targets: WebhookTargetPolicy,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {}

  async create(dto: CreateWebhookSubscriptionDto): Promise<CreatedWebhookSubscriptionDto> {
    this.checkUrl(dto.url);
    const secret = generateWebhookSecret();
    const max = this.env.WEBHOOK_MAX_SUBSCRIPTIONS;
    const row = await this.repository.insert(
      {
        id: randomUUID(),
        url: dto.url,
        eventTypes: dto.eventTypes,
        description: dto.description ?? null,
        enabled: dto.enabled ?? true,
        secret,
      },
      max,
    );
    if (!row) throw new WebhookSubscriptionLimitError(max);
    return { ...row, secret };
  }

  list(limit: number, offset: number): Promise<WebhookSubscriptionDto[]> {
    return this.repository.list(limit, offset);
  }

  async get(id: string): Promise<WebhookSubscriptionDto> {
    const row = await this.repository.findById(id);
    if (!row) throw new WebhookSubscriptionNotFoundError(id);
    return row;
  }

  async update(id: string, dto: UpdateWebhookSubscriptionDto): Promise<WebhookSubscriptionDto> {
    if (dto.url !== undefined) this.checkUrl(dto.url);
    const row = await this.repository.update(id, dto);
    if (!row) throw new WebhookSubscriptionNotFoundError(id);
    return row;
  }

  async delete(id: string): Promise<void> {
    if (!(await this.repository.delete(id))) throw new WebhookSubscriptionNotFoundError(id);
  }

  async rotateSecret(id: string): Promise<RotatedWebhookSecretDto> {
    const secret = generateWebhookSecret();
    const previousSecretExpiresAt = await this.repository.rotateSecret(
      id,
      secret,
      this.env.WEBHOOK_SECRET_OVERLAP_HOURS,
    );
    if (previousSecretExpiresAt === null) throw new WebhookSubscriptionNotFoundError(id);
    return { secret, previousSecretExpiresAt };
  }

  /** The delivery log of a subscription, newest first, each delivery with its attempts. */
  async listDeliveries(
    id: string,
    query: WebhookDeliveriesQueryDto,
  ): Promise<WebhookDeliveryDto[]> {
    await this.get(id);
    const entries = await this.deliveries.listForSubscription(id, query);
    return entries.map(toWebhookDeliveryDto);
  }

  /**
   * A DEAD delivery back to PENDING, due now, its attempts counted from zero; the later
   * deliveries of its request to this subscription (held back behind it) are due now too.
   */
  async redeliver(id: string, deliveryId: string): Promise<void> {
    await this.get(id);
    const outcome = await this.deliveries.redeliver(id, deliveryId);
    if (outcome === 'not-found') throw new WebhookDeliveryNotFoundError(id, deliveryId);
    if (outcome === 'not-dead') throw new WebhookDeliveryNotDeadError(deliveryId);
  }

  /** A 400 on `url` naming the rule it breaks (target-policy rule names, docs/webhooks.md "Safety"). */
  private checkUrl(url: string): void {
    const check = this.targets.checkUrl(url);
    if (!check.allowed)
      throw new RequestValidationError([
        { path: 'url', message: `${check.message} (${check.rule})` },
      ]);
  }
}

const isoOrNull = (at: Date | null): string | null => (at === null ? null : at.toISOString());

/** A log entry as the API shows it: instants in ISO 8601 UTC, no response body. */
function toWebhookDeliveryDto(entry: WebhookDeliveryLogEntry): WebhookDeliveryDto {
  return {
    id: entry.id,
    eventId: entry.eventId,
    // The column holds only what the card issue statements write: WEBHOOK_EVENT_TYPES.
    eventType: entry.eventType,
    requestId: entry.requestId,
    sequence: entry.sequence,
    state: entry.state,
    attempts: entry.attempts,
    nextAttemptAt: isoOrNull(entry.nextAttemptAt),
    lastAttemptAt: isoOrNull(entry.lastAttemptAt),
    lastStatusCode: entry.lastStatusCode,
    lastLatencyMs: entry.lastLatencyMs,
    lastError: entry.lastError,
    createdAt: entry.createdAt.toISOString(),
    deliveredAt: isoOrNull(entry.deliveredAt),
    attemptLog: entry.attemptLog.map((attempt) => ({
      attempt: attempt.attempt,
      at: attempt.at.toISOString(),
      statusCode: attempt.statusCode,
      latencyMs: attempt.latencyMs,
      error: attempt.error,
    })),
  };
}
