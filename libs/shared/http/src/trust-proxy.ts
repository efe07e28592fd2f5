import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import { INestApplication } from '@nestjs/common';

/**
 * Whether the peer at `hop` (0: the socket's own peer, then each X-Forwarded-For entry from
 * the right) is a proxy whose X-Forwarded-For entry may be believed. Fastify resolves the
 * client address (request.ip, which the rate limit is keyed on) with it.
 */
export type TrustProxy = (address: string, hop: number) => boolean;

/** TRUST_PROXY unset: no proxy is trusted, the client is the socket's peer. */
export const TRUST_NOBODY: TrustProxy = () => false;

const KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 32;

/** Why TRUST_PROXY's value is refused, or undefined when it is fine. */
export function trustProxyProblem(value: string): string | undefined {
  const text = value.trim();
  if (['', 'false', 'off', '0'].includes(text.toLowerCase()) || /^\d+$/.test(text)) {
    return /^\d+$/.test(text) && Number(text) > MAX_HOPS
      ? `TRUST_PROXY must be a hop count from 0 to ${MAX_HOPS}`
      : undefined;
  }
  if (text.toLowerCase() === 'true') {
    return (
      'TRUST_PROXY=true would believe the X-Forwarded-For of any client (and let it dodge the ' +
      'rate limit): give the number of proxies in front of the service, or their addresses'
    );
  }
  for (const entry of text.split(',').map((part) => part.trim())) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const validPrefix =
      prefix === undefined ||
      (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!KEYWORDS.has(entry) && (!family || !validPrefix || rest.length)) {
      return (
        'TRUST_PROXY must be off, a hop count, or a comma-separated list of proxy addresses ' +
        '(IP, CIDR, loopback, linklocal, uniquelocal)'
      );
    }
  }
  return undefined;
}

/**
 * The trust function of a TRUST_PROXY value (already validated by trustProxyProblem): none
 * when unset or off; the nearest `n` hops for a count; the listed addresses and networks
 * (compiled by the same library Fastify uses for its own trustProxy).
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (['', 'false', 'off', '0'].includes(text.toLowerCase())) return TRUST_NOBODY;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return (_address, hop) => hop < hops;
  }
  return proxyAddr.compile(text.split(',').map((part) => part.trim()));
}

/** Which proxies are trusted, per adapter (see installTrustProxy). */
const trustSettings = new WeakMap<object, TrustProxy>();

/**
 * Sets which peers' X-Forwarded-For the adapter believes (TRUST_PROXY): request.ip, the rate
 * limit's key, is the nearest address not trusted. Until this is called, nobody is trusted.
 */
export function installTrustProxy(app: INestApplication, trust: TrustProxy): void {
  trustSettings.set(app.getHttpAdapter(), trust);
}

/** The adapter's trust function (createHttpAdapter's trustProxy asks it on every request). */
export function trustProxyOf(adapter: object): TrustProxy {
  return trustSettings.get(adapter) ?? TRUST_NOBODY;
}
