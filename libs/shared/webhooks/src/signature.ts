import { createHmac } from 'node:crypto';

/** The headers of a delivery that carry the signature (docs/webhooks.md "Signatures"). */
export const WEBHOOK_ID_HEADER = 'Webhook-Id';
export const WEBHOOK_TIMESTAMP_HEADER = 'Webhook-Timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'Webhook-Signature';

/** The scheme of the signatures in the header; a later scheme would get v2 beside it. */
export const WEBHOOK_SIGNATURE_SCHEME = 'v1';

/**
 * HMAC-SHA256 in hex over `<timestamp>.<body>`, the key being the secret string exactly as the
 * API returned it (UTF-8, `whsec_` prefix included): the receiver uses what it was given, with
 * no decoding step to get wrong. The timestamp is inside the MAC so a captured delivery cannot
 * be replayed later under a fresh timestamp.
 */
export function computeWebhookSignature(
  secret: string,
  timestamp: number,
  body: string | Buffer,
): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}
