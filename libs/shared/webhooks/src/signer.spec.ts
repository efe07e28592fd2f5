import { createHmac } from 'node:crypto';
import { generateWebhookSecret, unixSeconds, webhookSignatureHeader } from './signer';
import { parseSignatureHeader, verifyWebhookSignature } from './verifier';

const body = '{"id":"4b0c5f7e-0000-4000-8000-000000000001","type":"card_issue.created"}';
const t = 1_795_500_000;
const at = new Date(t * 1000);

describe('generateWebhookSecret', () => {
  it('is whsec_ + base64url of 32 bytes, different each time', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe('webhookSignatureHeader', () => {
  it('is t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>, the recipe of docs/webhooks.md', () => {
    const secret = 'whsec_test';
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(webhookSignatureHeader(t, body, [secret])).toBe(`t=${t},v1=${expected}`);
  });

  it('signs with every secret given, current first', () => {
    const header = webhookSignatureHeader(t, body, ['whsec_new', 'whsec_old']);
    const parsed = parseSignatureHeader(header)!;
    expect(parsed.signatures).toHaveLength(2);
    expect(verifyWebhookSignature({ body, header, secret: 'whsec_new', now: at }).valid).toBe(true);
    expect(verifyWebhookSignature({ body, header, secret: 'whsec_old', now: at }).valid).toBe(true);
  });

  it('refuses no secret and a fractional timestamp', () => {
    expect(() => webhookSignatureHeader(t, body, [])).toThrow(RangeError);
    expect(() => webhookSignatureHeader(t + 0.5, body, ['s'])).toThrow(RangeError);
  });

  it('unixSeconds truncates milliseconds', () => {
    expect(unixSeconds(new Date(t * 1000 + 999))).toBe(t);
  });
});

describe('verifyWebhookSignature', () => {
  const secret = generateWebhookSecret();
  const header = webhookSignatureHeader(t, body, [secret]);

  it('accepts the body it was signed over, as a string or as bytes', () => {
    expect(verifyWebhookSignature({ body, header, secret, now: at })).toEqual({
      valid: true,
      timestamp: t,
    });
    expect(verifyWebhookSignature({ body: Buffer.from(body), header, secret, now: at }).valid).toBe(
      true,
    );
  });

  it('rejects a changed body, another secret, a changed timestamp', () => {
    const fail = { valid: false, reason: 'no-matching-signature' };
    expect(verifyWebhookSignature({ body: body + ' ', header, secret, now: at })).toEqual(fail);
    expect(
      verifyWebhookSignature({ body, header, secret: generateWebhookSecret(), now: at }),
    ).toEqual(fail);
    const replayed = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifyWebhookSignature({ body, header: replayed, secret, now: at })).toEqual(fail);
  });

  it('rejects timestamps outside the tolerance, either way, and accepts its edge', () => {
    const outside = { valid: false, reason: 'timestamp-outside-tolerance' };
    const late = new Date((t + 301) * 1000);
    const early = new Date((t - 301) * 1000);
    expect(verifyWebhookSignature({ body, header, secret, now: late })).toEqual(outside);
    expect(verifyWebhookSignature({ body, header, secret, now: early })).toEqual(outside);
    const edge = new Date((t + 300) * 1000);
    expect(verifyWebhookSignature({ body, header, secret, now: edge }).valid).toBe(true);
    expect(
      verifyWebhookSignature({ body, header, secret, now: late, toleranceSeconds: 600 }).valid,
    ).toBe(true);
  });

  it('accepts any of several receiver secrets', () => {
    expect(
      verifyWebhookSignature({ body, header, secret: ['whsec_other', secret], now: at }).valid,
    ).toBe(true);
  });

  it.each([
    [undefined],
    [''],
    [`v1=${'a'.repeat(64)}`],
    [`t=${t}`],
    [`t=${t},v1=zz`],
    [`t=abc,v1=${'a'.repeat(64)}`],
    [`t=${t},t=${t},v1=${'a'.repeat(64)}`],
    [`t=${t};v1=${'a'.repeat(64)}`],
  ])('rejects the malformed header %p', (malformed) => {
    expect(verifyWebhookSignature({ body, header: malformed, secret, now: at })).toEqual({
      valid: false,
      reason: 'malformed-header',
    });
  });

  it('ignores schemes it does not know', () => {
    const withV2 = `${header},v2=whatever`;
    expect(verifyWebhookSignature({ body, header: withV2, secret, now: at }).valid).toBe(true);
  });
});
