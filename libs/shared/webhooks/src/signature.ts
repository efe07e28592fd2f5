import { createHmac } from 'node:crypto';

/**
 * The headers of a delivery that carry its signature: the Standard Webhooks names
 * (https://www.standardwebhooks.com, docs/webhooks.md "Signatures"). HTTP header names are
 * case-insensitive; these are the spec's spelling.
 */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/** The version of the symmetric signatures in the header (`v1,<base64>`). */
export const WEBHOOK_SIGNATURE_VERSION = 'v1';

/** The prefix of a symmetric Standard Webhooks secret. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Standard or URL-safe base64, padded or not (the secrets issued before were base64url). */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * The HMAC key of a secret: the bytes the base64 after `whsec_` encodes (the Standard Webhooks
 * rule; without the prefix the whole string is the base64). The URL-safe alphabet decodes to the
 * same bytes: the secrets issued before this scheme were `whsec_` + base64url, so they keep their
 * key. Throws a RangeError for a string that is not base64 or encodes nothing.
 */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  const key = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (key.length === 0) {
    throw new RangeError('a webhook secret is whsec_ followed by the base64 of its key');
  }
  return key;
}

/**
 * The secret in the Standard Webhooks form, `whsec_` + standard base64 (padded) of its key: what
 * every Standard Webhooks library decodes. The same key as `secret`, so the same signatures: a
 * receiver holding a secret issued before (`whsec_` + base64url) converts it with this.
 */
export function standardWebhookSecret(secret: string): string {
  return WEBHOOK_SECRET_PREFIX + webhookSecretKey(secret).toString('base64');
}

/**
 * The base64 HMAC-SHA256, under the secret's key, of `<msg id>.<timestamp>.<body>`: the
 * Standard Webhooks signed content. The id and the timestamp are inside the MAC, so a captured
 * delivery can be replayed neither under a fresh timestamp nor as another message.
 */
export function computeWebhookSignature(
  key: Buffer,
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}
