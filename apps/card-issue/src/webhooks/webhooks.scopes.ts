/** Scope a bearer token needs for the webhook subscription operations (AUTH_MODE=jwt; docs/security.md). */
export const WEBHOOK_SCOPES = {
  /**
   * Every operation on /api/v1/webhook-subscriptions. One scope, not read/write: reading a
   * subscription's delivery log shows what its receiver answered, and whoever may do that
   * administers the receiver anyway.
   */
  manage: 'card-issue:webhooks',
} as const;
