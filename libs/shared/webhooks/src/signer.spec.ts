import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { standardWebhookSecret, webhookSecretKey } from './signature';
import {
  generateWebhookSecret,
  unixSeconds,
  webhookSignatureHeader,
  webhookSignatureHeaders,
} from './signer';
import { parseSignatureHeader, verifyWebhookSignature } from './verifier';

const id = '4b0c5f7e-0000-4000-8000-000000000001';
const body = `{"id":"${id}","type":"card_issue.created"}`;
const t = 1_795_500_000;
const at = new Date(t * 1000);

/** A secret as the service issued them before Standard Webhooks: base64url, unpadded. */
function base64urlSecret(mustContainUrlSafeCharacter: boolean): string {
  for (;;) {
    const secret = 'whsec_' + randomBytes(32).toString('base64url');
    if (/[-_]/.test(secret.slice(6)) === mustContainUrlSafeCharacter) return secret;
  }
}

/** The `standardwebhooks` package (the Standard Webhooks reference) verifying at `now`. */
function standardVerifies(
  secret: string,
  headers: Record<string, string>,
  payload = body,
  now = at,
): boolean {
  jest.useFakeTimers({ now, doNotFake: ['nextTick', 'setImmediate'] });
  try {
    new Webhook(secret).verify(payload, headers);
    return true;
  } catch {
    return false;
  } finally {
    jest.useRealTimers();
  }
}

describe('generateWebhookSecret', () => {
  it('is whsec_ + standard base64 of 32 bytes, different each time, and the reference takes it', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookSecretKey(a)).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(standardWebhookSecret(a)).toBe(a);
    expect(() => new Webhook(a)).not.toThrow();
  });
});

describe('webhookSignatureHeader (Standard Webhooks v1)', () => {
  it('matches the reference package on its own test vector', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const msgId = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const payload = '{"test": 2432232314}';
    const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    expect(webhookSignatureHeader(msgId, 1614265330, payload, [secret])).toBe(expected);
    expect(new Webhook(secret).sign(msgId, new Date(1614265330 * 1000), payload)).toBe(expected);
  });

  it('is v1,<base64 HMAC-SHA256 under the decoded key of "<id>.<t>.<body>">', () => {
    const secret = generateWebhookSecret();
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${t}.${body}`).digest('base64');
    expect(webhookSignatureHeader(id, t, body, [secret])).toBe(`v1,${expected}`);
    expect(webhookSignatureHeader(id, t, Buffer.from(body), [secret])).toBe(`v1,${expected}`);
  });

  it('signs with every secret given, current first, space-separated; the reference verifies either', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const headers = webhookSignatureHeaders(id, t, body, [current, previous]);
    expect(headers).toEqual({
      'webhook-id': id,
      'webhook-timestamp': String(t),
      'webhook-signature': expect.stringMatching(/^v1,\S{44} v1,\S{44}$/),
    });
    expect(parseSignatureHeader(headers['webhook-signature'])).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(standardVerifies(secret, headers)).toBe(true);
      expect(verifyWebhookSignature({ body, headers, secret, now: at }).valid).toBe(true);
    }
    expect(standardVerifies(generateWebhookSecret(), headers)).toBe(false);
  });

  it('refuses no secret, no id, a fractional timestamp and a secret that is not base64', () => {
    const secret = generateWebhookSecret();
    expect(() => webhookSignatureHeader(id, t, body, [])).toThrow(RangeError);
    expect(() => webhookSignatureHeader('', t, body, [secret])).toThrow(RangeError);
    expect(() => webhookSignatureHeader(id, t + 0.5, body, [secret])).toThrow(RangeError);
    expect(() => webhookSignatureHeader(id, t, body, ['whsec_'])).toThrow(RangeError);
    expect(() => webhookSignatureHeader(id, t, body, ['whsec_not base64!'])).toThrow(RangeError);
  });

  it('unixSeconds truncates milliseconds', () => {
    expect(unixSeconds(new Date(t * 1000 + 999))).toBe(t);
  });
});

describe('secrets issued before Standard Webhooks (whsec_ + base64url)', () => {
  it('keep their key: the service signs with the bytes they encode', () => {
    const old = base64urlSecret(true);
    const key = Buffer.from(old.slice('whsec_'.length), 'base64url');
    expect(webhookSecretKey(old)).toEqual(key);
    const converted = standardWebhookSecret(old);
    expect(converted).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookSecretKey(converted)).toEqual(key);
    expect(webhookSignatureHeader(id, t, body, [old])).toBe(
      webhookSignatureHeader(id, t, body, [converted]),
    );
  });

  it('verify unchanged with @bank/shared/webhooks; the reference needs the converted string when it has - or _', () => {
    const old = base64urlSecret(true);
    const headers = webhookSignatureHeaders(id, t, body, [old]);
    expect(verifyWebhookSignature({ body, headers, secret: old, now: at }).valid).toBe(true);
    expect(() => new Webhook(old)).toThrow(/incorrect characters/);
    expect(standardVerifies(standardWebhookSecret(old), headers)).toBe(true);
  });

  it('verify unchanged with the reference too when they have neither - nor _', () => {
    const old = base64urlSecret(false);
    const headers = webhookSignatureHeaders(id, t, body, [old]);
    expect(standardVerifies(old, headers)).toBe(true);
  });
});

describe('verifyWebhookSignature', () => {
  const secret = generateWebhookSecret();
  const headers = webhookSignatureHeaders(id, t, body, [secret]);

  it('accepts what the reference package signed, as a string or as bytes, headers in any case', () => {
    const reference = new Webhook(secret).sign(id, at, body);
    const signed = {
      'Webhook-Id': id,
      'WEBHOOK-TIMESTAMP': String(t),
      'webhook-signature': reference,
    };
    expect(verifyWebhookSignature({ body, headers: signed, secret, now: at })).toEqual({
      valid: true,
      id,
      timestamp: t,
    });
    expect(
      verifyWebhookSignature({ body: Buffer.from(body), headers: signed, secret, now: at }).valid,
    ).toBe(true);
  });

  it('rejects a changed body, another secret, a changed timestamp or id', () => {
    const fail = { valid: false, reason: 'no-matching-signature' };
    expect(verifyWebhookSignature({ body: body + ' ', headers, secret, now: at })).toEqual(fail);
    expect(
      verifyWebhookSignature({ body, headers, secret: generateWebhookSecret(), now: at }),
    ).toEqual(fail);
    const replayed = { ...headers, 'webhook-timestamp': String(t + 1) };
    expect(verifyWebhookSignature({ body, headers: replayed, secret, now: at })).toEqual(fail);
    const otherId = { ...headers, 'webhook-id': 'another-message' };
    expect(verifyWebhookSignature({ body, headers: otherId, secret, now: at })).toEqual(fail);
  });

  it('rejects timestamps outside the tolerance, either way, and accepts its edge', () => {
    const outside = { valid: false, reason: 'timestamp-outside-tolerance' };
    const late = new Date((t + 301) * 1000);
    const early = new Date((t - 301) * 1000);
    expect(verifyWebhookSignature({ body, headers, secret, now: late })).toEqual(outside);
    expect(verifyWebhookSignature({ body, headers, secret, now: early })).toEqual(outside);
    const edge = new Date((t + 300) * 1000);
    expect(verifyWebhookSignature({ body, headers, secret, now: edge }).valid).toBe(true);
    expect(
      verifyWebhookSignature({ body, headers, secret, now: late, toleranceSeconds: 600 }).valid,
    ).toBe(true);
    // The reference agrees on both sides of the edge.
    expect(standardVerifies(secret, headers, body, edge)).toBe(true);
    expect(standardVerifies(secret, headers, body, late)).toBe(false);
  });

  it('accepts any of several receiver secrets', () => {
    expect(
      verifyWebhookSignature({
        body,
        headers,
        secret: [generateWebhookSecret(), secret],
        now: at,
      }).valid,
    ).toBe(true);
  });

  it.each([['webhook-id'], ['webhook-timestamp'], ['webhook-signature']])(
    'rejects a delivery without %s',
    (name) => {
      const without = { ...headers, [name]: undefined };
      expect(verifyWebhookSignature({ body, headers: without, secret, now: at })).toEqual({
        valid: false,
        reason: 'missing-header',
      });
    },
  );

  it.each([
    [{ 'webhook-timestamp': 'abc' }],
    [{ 'webhook-timestamp': `${t}.5` }],
    [{ 'webhook-id': [id, id] }],
    [{ 'webhook-signature': 'v1' }],
    [{ 'webhook-signature': `,${'a'.repeat(43)}=` }],
    [{ 'webhook-signature': 'v1,zz' }],
    [{ 'webhook-signature': `v1=${'a'.repeat(64)}` }],
  ])('rejects the malformed headers %p', (changed) => {
    expect(
      verifyWebhookSignature({ body, headers: { ...headers, ...changed }, secret, now: at }),
    ).toEqual({ valid: false, reason: 'malformed-header' });
  });

  it('ignores signature versions it does not know, and several spaces', () => {
    const signature = `v1a,${'A'.repeat(86)}==  ${headers['webhook-signature']}`;
    const withV1a = { ...headers, 'webhook-signature': signature };
    expect(verifyWebhookSignature({ body, headers: withV1a, secret, now: at }).valid).toBe(true);
    const onlyV1a = { ...headers, 'webhook-signature': `v1a,${'A'.repeat(86)}==` };
    expect(verifyWebhookSignature({ body, headers: onlyV1a, secret, now: at })).toEqual({
      valid: false,
      reason: 'no-matching-signature',
    });
    // The Stripe-style header of the scheme before: no v1 entry to match.
    const stripeStyle = { ...headers, 'webhook-signature': `t=${t},v1=${'a'.repeat(64)}` };
    expect(verifyWebhookSignature({ body, headers: stripeStyle, secret, now: at })).toEqual({
      valid: false,
      reason: 'no-matching-signature',
    });
  });

  it('throws on a receiver secret that is not base64 (a configuration error)', () => {
    expect(() =>
      verifyWebhookSignature({ body, headers, secret: 'whsec_not base64!', now: at }),
    ).toThrow(RangeError);
  });
});
