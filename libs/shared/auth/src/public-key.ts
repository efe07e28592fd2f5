import { createPublicKey, KeyObject } from 'node:crypto';

/**
 * The configured verification key: a PEM public key (SPKI, `-----BEGIN PUBLIC KEY-----`) or
 * one public JWK as JSON. Private keys and symmetric keys are refused, so no secret that can
 * sign a token ever sits in a service's configuration. A PEM whose line breaks were written
 * as the two characters `\n` (one-line environment values) is taken too.
 */
export function parsePublicKey(text: string): KeyObject {
  const value = text.trim();
  if (value.startsWith('{')) {
    let jwk: Record<string, unknown>;
    try {
      jwk = JSON.parse(value) as Record<string, unknown>;
    } catch {
      throw new Error('is neither a PEM public key nor a JWK (invalid JSON)');
    }
    if (jwk.kty === 'oct') throw new Error('is a symmetric JWK; give a public key');
    if ('d' in jwk) throw new Error('is a private JWK; give its public part only');
    try {
      return createPublicKey({ key: jwk, format: 'jwk' });
    } catch {
      throw new Error('is not a usable public JWK');
    }
  }
  const pem = value.includes('\n') ? value : value.replace(/\\n/g, '\n');
  if (/PRIVATE KEY/.test(pem)) throw new Error('is a private key; give the public key');
  if (!pem.startsWith('-----BEGIN PUBLIC KEY-----')) {
    throw new Error('is neither a PEM public key (-----BEGIN PUBLIC KEY-----) nor a JWK');
  }
  try {
    return createPublicKey(pem);
  } catch {
    throw new Error('is not a readable PEM public key');
  }
}
