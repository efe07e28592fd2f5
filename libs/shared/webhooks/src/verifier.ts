import { timingSafeEqual } from 'node:crypto';
import { WEBHOOK_SIGNATURE_SCHEME, computeWebhookSignature } from './signature';

/** Five minutes either side, the usual tolerance: clocks drift, replays older than it fail. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

export type WebhookVerificationFailure =
  'malformed-header' | 'timestamp-outside-tolerance' | 'no-matching-signature';

export type WebhookVerification =
  { valid: true; timestamp: number } | { valid: false; reason: WebhookVerificationFailure };

export interface VerifyWebhookOptions {
  /** The raw request body, byte for byte as received (not re-serialised JSON). */
  body: string | Buffer;
  /** The Webhook-Signature header value. */
  header: string | undefined;
  /** The receiver's secret, or several while it is switching to a rotated one. */
  secret: string | readonly string[];
  toleranceSeconds?: number;
  /** The receiver's clock; tests pass their own. */
  now?: Date;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * The receiver's side (docs/webhooks.md "Signatures"): the header parses, its timestamp is
 * within the tolerance of the receiver's clock, and one of its v1 signatures equals the HMAC of
 * `<t>.<body>` under one of the receiver's secrets (constant-time comparison). Unknown schemes
 * in the header are ignored so a later v2 does not break a v1 receiver.
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): WebhookVerification {
  const parsed = parseSignatureHeader(options.header);
  if (!parsed) return { valid: false, reason: 'malformed-header' };
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - parsed.timestamp) > tolerance) {
    return { valid: false, reason: 'timestamp-outside-tolerance' };
  }
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  for (const secret of secrets) {
    const expected = Buffer.from(
      computeWebhookSignature(secret, parsed.timestamp, options.body),
      'hex',
    );
    for (const signature of parsed.signatures) {
      if (timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
        return { valid: true, timestamp: parsed.timestamp };
      }
    }
  }
  return { valid: false, reason: 'no-matching-signature' };
}

/** `t=<digits>` once and at least one well-formed `v1=<64 hex>`; anything else is malformed. */
export function parseSignatureHeader(
  header: string | undefined,
): { timestamp: number; signatures: string[] } | undefined {
  if (!header) return undefined;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) return undefined;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,15}$/.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === WEBHOOK_SIGNATURE_SCHEME) {
      if (!HEX_SHA256.test(value)) return undefined;
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}
