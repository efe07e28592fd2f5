import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { RequestValidationError } from '@bank/shared/errors';
import { ENVIRONMENT } from '@bank/shared/nest';
import { generateWebhookSecret, parseCidrList, WebhookTargetPolicy } from '@bank/shared/webhooks';
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
import { WebhookSubscriptionNotFoundError } from './webhook-subscriptions.errors';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';

/**
 * The subscriptions API: who receives which events where. The URL is checked against the
 * target policy here (a 400 naming the rule) and again by the sender at every delivery, where
 * the addresses a name resolves to are checked too (docs/webhooks.md "Safety").
 */
@Injectable()
export class WebhookSubscriptionsService {
  private readonly targets: WebhookTargetPolicy;

  constructor(
    private readonly repository: WebhookSubscriptionsRepository,
    @Inject(ENVIRONMENT) private readonly env: CardIssueEnvironment,
  ) {
    this.targets = new WebhookTargetPolicy({
      production: env.NODE_ENV === 'production',
      allowedCidrs: parseCidrList(env.WEBHOOK_ALLOWED_TARGET_CIDRS),
    });
  }

  async create(dto: CreateWebhookSubscriptionDto): Promise<CreatedWebhookSubscriptionDto> {
    this.checkUrl(dto.url);
    const secret = generateWebhookSecret();
    const row = await this.repository.insert({
      id: randomUUID(),
      url: dto.url,
      eventTypes: dto.eventTypes,
      description: dto.description ?? null,
      enabled: dto.enabled ?? true,
      secret,
    });
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

  /** A 400 on `url` naming the rule it breaks (target-policy rule names, docs/webhooks.md "Safety"). */
  private checkUrl(url: string): void {
    const check = this.targets.checkUrl(url);
    if (!check.allowed)
      throw new RequestValidationError([
        { path: 'url', message: `${check.message} (${check.rule})` },
      ]);
  }
}
