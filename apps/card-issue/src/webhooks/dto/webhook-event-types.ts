/** Placeholder until webhook-events.model.ts (DELIVERY) lands; replaced by its union on merge. */
export const WEBHOOK_EVENT_TYPES = [
  'card_issue.created',
  'card_issue.failed',
  'card_issue.status_changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
