import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { WebhookEventType } from './webhook-events.model';
import {
  DELETE_WEBHOOK_SUBSCRIPTION_SQL,
  INSERT_WEBHOOK_SUBSCRIPTION_SQL,
  LOCK_WEBHOOK_SUBSCRIPTION_CREATION_SQL,
  ROTATE_WEBHOOK_SECRET_SQL,
  SELECT_WEBHOOK_SUBSCRIPTIONS_SQL,
  SELECT_WEBHOOK_SUBSCRIPTION_BY_ID_SQL,
  UPDATE_WEBHOOK_SUBSCRIPTION_SQL,
} from './webhook-subscriptions.sql';

/** A subscription as stored, without its secrets. Instants are ISO 8601 UTC text. */
export interface WebhookSubscriptionRow {
  id: string;
  url: string;
  eventTypes: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  consecutiveFailures: number;
  failingSince: string | null;
  autoDisabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewWebhookSubscription {
  id: string;
  url: string;
  eventTypes: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  secret: string;
}

/** The fields a PATCH sent; `description: null` clears it, an absent field stays as stored. */
export interface WebhookSubscriptionChanges {
  url?: string;
  eventTypes?: WebhookEventType[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * The one owner of webhook_subscriptions: runs the statements of webhook-subscriptions.sql.ts.
 * (A typed row, not an entity: the table is raw SQL like the other tables of the webhooks.)
 */
@Injectable()
export class WebhookSubscriptionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The subscription as stored, or null when `maxSubscriptions` exist already. */
  insert(
    row: NewWebhookSubscription,
    maxSubscriptions: number,
  ): Promise<WebhookSubscriptionRow | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(LOCK_WEBHOOK_SUBSCRIPTION_CREATION_SQL);
      const rows = await manager.query<WebhookSubscriptionRow[]>(INSERT_WEBHOOK_SUBSCRIPTION_SQL, [
        row.id,
        row.url,
        row.eventTypes,
        row.description,
        row.enabled,
        row.secret,
        maxSubscriptions,
      ]);
      return rows[0] ?? null;
    });
  }

  list(limit: number, offset: number): Promise<WebhookSubscriptionRow[]> {
    return this.dataSource.query<WebhookSubscriptionRow[]>(SELECT_WEBHOOK_SUBSCRIPTIONS_SQL, [
      limit,
      offset,
    ]);
  }

  async findById(id: string): Promise<WebhookSubscriptionRow | null> {
    const rows = await this.dataSource.query<WebhookSubscriptionRow[]>(
      SELECT_WEBHOOK_SUBSCRIPTION_BY_ID_SQL,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The subscription as changed, or null when there is none with this id. */
  async update(
    id: string,
    changes: WebhookSubscriptionChanges,
  ): Promise<WebhookSubscriptionRow | null> {
    const rows = await this.dataSource.query<WebhookSubscriptionRow[]>(
      UPDATE_WEBHOOK_SUBSCRIPTION_SQL,
      [
        id,
        changes.url ?? null,
        changes.eventTypes ?? null,
        changes.description !== undefined,
        changes.description ?? null,
        changes.enabled ?? null,
      ],
    );
    return rows[0] ?? null;
  }

  /** False when there was no subscription with this id. */
  async delete(id: string): Promise<boolean> {
    const rows = await this.dataSource.query<{ id: string }[]>(DELETE_WEBHOOK_SUBSCRIPTION_SQL, [
      id,
    ]);
    return rows.length > 0;
  }

  /** The instant the replaced secret stops signing (ISO 8601 UTC), or null when there is no such subscription. */
  async rotateSecret(id: string, secret: string, overlapHours: number): Promise<string | null> {
    const rows = await this.dataSource.query<{ previousSecretExpiresAt: string }[]>(
      ROTATE_WEBHOOK_SECRET_SQL,
      [id, secret, overlapHours],
    );
    return rows[0]?.previousSecretExpiresAt ?? null;
  }
}
