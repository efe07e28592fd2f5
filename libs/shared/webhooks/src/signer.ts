import { randomBytes } from 'node:crypto';
import {
  WEBHOOK_ID_HEADER,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_SIGNATURE_VERSION,
  WEBHOOK_TIMESTAMP_HEADER,
  computeWebhookSignature,
  webhookSecretKey,
} from './signature';

/**
 * `whsec_` + standard base64 of 32 random bytes (256 bits, the HMAC-SHA256 block's useful key
 * size; Standard Webhooks asks for 24 to 64): the form every Standard Webhooks library decodes.
 */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * `v1,<base64>[ v1,<base64>]`: one signature per secret that is valid now, the current one
 * first, space-separated (Standard Webhooks). During a rotation overlap the previous secret signs
 * too, so a receiver still configured with it keeps verifying until it switches.
 */
export function webhookSignatureHeader(
  id: string,
  timestamp: number,
  body: string | Buffer,
  secrets: readonly string[],
): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be whole unix seconds, got ${timestamp}`);
  }
  if (id === '') throw new RangeError('a delivery is signed with its message id');
  if (secrets.length === 0) {
    throw new RangeError('at least one secret signs a delivery');
  }
  return secrets
    .map(
      (secret) =>
        `${WEBHOOK_SIGNATURE_VERSION},${computeWebhookSignature(webhookSecretKey(secret), id, timestamp, body)}`,
    )
    .join(' ');
}

/**
 * The three Standard Webhooks headers of one attempt: `webhook-id` (the same on every attempt:
 * receivers deduplicate by it), `webhook-timestamp` (this attempt, unix seconds) and
 * `webhook-signature` over both and the body.
 */
export function webhookSignatureHeaders(
  id: string,
  timestamp: number,
  body: string | Buffer,
  secrets: readonly string[],
): Record<string, string> {
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: webhookSignatureHeader(id, timestamp, body, secrets),
  };
}

/** Unix seconds of an instant, the unit of `webhook-timestamp`. */
export function unixSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}
