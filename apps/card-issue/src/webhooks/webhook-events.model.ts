import {
  CardIssueStatus,
  STATUS_CODES,
  StatusSource,
} from '../card-issues/card-issue-status.model';

/** The events a subscription can ask for (docs/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = [
  'card_issue.created',
  'card_issue.failed',
  'card_issue.status_changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The `data` column of a webhook_deliveries row: what the statement that made the change knows,
 * written by the SQL of card-issues.sql.ts (through insertWebhookDeliveries) and read back by
 * the dispatcher. jsonb does not keep key order, so the body is not this object: buildWebhookBody
 * lays it out.
 */
export interface StoredWebhookEventData {
  status: CardIssueStatus;
  /** null for the events of a creation. */
  previousStatus: CardIssueStatus | null;
  source: StatusSource;
  failureReason: string | null;
}

/** The `data` of an event body, key for key in the order it is sent. */
export interface WebhookEventData {
  requestId: string;
  status: CardIssueStatus;
  statusCode: string;
  previousStatus: CardIssueStatus | null;
  previousStatusCode: string | null;
  source: StatusSource;
  failureReason: string | null;
}

/**
 * The JSON body of a delivery. A receiver deduplicates by `id` (the same in every attempt and,
 * for one event, in every subscription's delivery) and orders a request's events by `sequence`
 * (the request's status sequence after the change; the events of one change share it).
 */
export interface WebhookEventBody {
  id: string;
  type: WebhookEventType;
  /** The instant of the change, ISO 8601 UTC with milliseconds. */
  createdAt: string;
  sequence: number;
  data: WebhookEventData;
}

/** The stored columns of one event, as the dispatcher claims them. */
export interface StoredWebhookEvent {
  eventId: string;
  eventType: WebhookEventType;
  requestId: string;
  sequence: number;
  data: StoredWebhookEventData;
  /** occurred_at in epoch milliseconds. */
  occurredAt: number;
}

/**
 * The body from the stored columns. Built anew on every attempt and byte-identical each time:
 * every value comes from the row, and the key order is fixed here.
 */
export function buildWebhookBody(event: StoredWebhookEvent): WebhookEventBody {
  const { status, previousStatus, source, failureReason } = event.data;
  return {
    id: event.eventId,
    type: event.eventType,
    createdAt: new Date(event.occurredAt).toISOString(),
    sequence: event.sequence,
    data: {
      requestId: event.requestId,
      status,
      statusCode: STATUS_CODES[status],
      previousStatus,
      previousStatusCode: previousStatus ? STATUS_CODES[previousStatus] : null,
      source,
      failureReason,
    },
  };
}

/** The body as sent (and signed). */
export function serializeWebhookBody(event: StoredWebhookEvent): string {
  return JSON.stringify(buildWebhookBody(event));
}
