import { timingSafeEqual } from 'node:crypto';
import {
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_SIGNATURE_VERSION,
  WEBHOOK_TIMESTAMP_HEADER,
  computeWebhookSignature,
  webhookSecretKey,
} from './signature';

/** Five minutes either side (the Standard Webhooks default): clocks drift, older replays fail. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

export type WebhookVerificationFailure =
  'missing-header' | 'malformed-header' | 'timestamp-outside-tolerance' | 'no-matching-signature';

export type WebhookVerification =
  | { valid: true; id: string; timestamp: number }
  | { valid: false; reason: WebhookVerificationFailure };

/** Header values as node:http gives them (`req.headers`), or a plain record; names in any case. */
export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** The raw request body, byte for byte as received (not re-serialised JSON). */
  body: string | Buffer;
  /** The request's headers: webhook-id, webhook-timestamp and webhook-signature are read. */
  headers: WebhookHeaders;
  /**
   * The receiver's secret (`whsec_` + base64 of the key), or several while it switches to a
   * rotated one. A secret that is not base64 throws a RangeError (a configuration error).
   */
  secret: string | readonly string[];
  toleranceSeconds?: number;
  /** The receiver's clock; tests pass their own. */
  now?: Date;
}

/** A v1 signature: the standard base64 of 32 bytes (HMAC-SHA256). */
const V1_SIGNATURE = /^[A-Za-z0-9+/]{43}=$/;
const UNIX_SECONDS = /^\d{1,15}$/;

/**
 * The receiver's side of Standard Webhooks (docs/webhooks.md "Signatures"), what the
 * `standardwebhooks` package does: the three headers are there, the timestamp is within the
 * tolerance of the receiver's clock, and one of the header's v1 signatures equals the HMAC of
 * `<id>.<timestamp>.<body>` under the key of one of the receiver's secrets (constant-time
 * comparison). Other signature versions in the header are ignored, so a later one does not
 * break a v1 receiver. Secrets are accepted in the base64url form issued before too (same key).
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): WebhookVerification {
  const id = headerValue(options.headers, WEBHOOK_ID_HEADER);
  const timestampText = headerValue(options.headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatureHeader = headerValue(options.headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestampText || !signatureHeader) return { valid: false, reason: 'missing-header' };
  // A repeated header arrives as an array: which of its values was signed is unknown.
  if (
    typeof id !== 'string' ||
    typeof timestampText !== 'string' ||
    typeof signatureHeader !== 'string' ||
    !UNIX_SECONDS.test(timestampText)
  ) {
    return { valid: false, reason: 'malformed-header' };
  }
  const signatures = parseSignatureHeader(signatureHeader);
  if (!signatures) return { valid: false, reason: 'malformed-header' };
  const timestamp = Number(timestampText);
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    return { valid: false, reason: 'timestamp-outside-tolerance' };
  }
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  for (const secret of secrets) {
    const expected = Buffer.from(
      computeWebhookSignature(webhookSecretKey(secret), id, timestamp, options.body),
      'base64',
    );
    for (const signature of signatures) {
      if (timingSafeEqual(expected, signature)) return { valid: true, id, timestamp };
    }
  }
  return { valid: false, reason: 'no-matching-signature' };
}

/**
 * The v1 signatures of a `webhook-signature` header (space-separated `<version>,<signature>`),
 * decoded; those of other versions are left out. Undefined when an entry is not
 * `<version>,<signature>` or a v1 signature is not the base64 of 32 bytes.
 */
export function parseSignatureHeader(header: string): Buffer[] | undefined {
  const signatures: Buffer[] = [];
  for (const entry of header.split(' ').filter((part) => part !== '')) {
    const comma = entry.indexOf(',');
    if (comma <= 0) return undefined;
    const version = entry.slice(0, comma);
    const signature = entry.slice(comma + 1);
    if (version !== WEBHOOK_SIGNATURE_VERSION) continue;
    if (!V1_SIGNATURE.test(signature)) return undefined;
    signatures.push(Buffer.from(signature, 'base64'));
  }
  return signatures;
}

/** A header by name in any case; a repeated header (an array) is returned as is. */
function headerValue(
  headers: WebhookHeaders,
  name: string,
): string | readonly string[] | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}
