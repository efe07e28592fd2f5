import { randomBytes } from 'node:crypto';
import { WEBHOOK_SIGNATURE_SCHEME, computeWebhookSignature } from './signature';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** `whsec_` + base64url of 32 random bytes (256 bits, the HMAC-SHA256 block's useful key size). */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: one signature per secret that is valid now, the
 * current one first. During a rotation overlap the previous secret signs too, so a receiver
 * still configured with it keeps verifying until it switches.
 */
export function webhookSignatureHeader(
  timestamp: number,
  body: string | Buffer,
  secrets: readonly string[],
): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be whole unix seconds, got ${timestamp}`);
  }
  if (secrets.length === 0) {
    throw new RangeError('at least one secret signs a delivery');
  }
  const signatures = secrets.map(
    (secret) => `${WEBHOOK_SIGNATURE_SCHEME}=${computeWebhookSignature(secret, timestamp, body)}`,
  );
  return [`t=${timestamp}`, ...signatures].join(',');
}

/** Unix seconds of an instant, the unit of `t=` and of Webhook-Timestamp. */
export function unixSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}
