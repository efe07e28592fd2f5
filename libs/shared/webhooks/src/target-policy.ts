import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent (docs/webhooks.md "Safety"). A subscription's URL is chosen by an
 * API client, so without this policy the service would POST on the client's behalf to its own
 * loopback, the cluster network or the cloud metadata address (SSRF). The policy is checked
 * twice: on the URL when a subscription is written (literal addresses, `localhost`), and on
 * every address the name resolves to at delivery time, inside the HTTP request's own `lookup`,
 * so the address checked is the address connected to (a name that resolves to a public address
 * at subscription time and to 127.0.0.1 later — DNS rebinding — is refused then).
 */

/** A stable name per rule, used in the API's 400 message and in a delivery's last_error. */
export type WebhookTargetRule =
  | 'url-malformed'
  | 'scheme-not-allowed'
  | 'https-required'
  | 'userinfo-not-allowed'
  | 'address-not-allowed';

export type WebhookTargetCheck =
  { allowed: true; url: URL } | { allowed: false; rule: WebhookTargetRule; message: string };

export interface WebhookTargetPolicyOptions {
  /** NODE_ENV=production: https only. */
  production: boolean;
  /**
   * WEBHOOK_ALLOWED_TARGET_CIDRS: ranges let through although refused by default (tests:
   * `127.0.0.0/8` for a receiver on loopback). Default none.
   */
  allowedCidrs?: readonly string[];
  /** The resolver behind the delivery-time lookup; node:dns by default, a fake in tests. */
  resolve?: typeof dnsLookup;
}

/**
 * Refused by default: private (RFC 1918, ULA), loopback, link-local (the metadata address
 * 169.254.169.254 included), unspecified (0.0.0.0 reaches the local host on Linux), CGNAT.
 * IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is matched against the IPv4 ranges by net.BlockList
 * itself; the unit tests pin that.
 */
const REFUSED_RANGES: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
];

/** The error the delivery-time lookup fails with; the sender records it as a failed attempt. */
export class WebhookTargetRefusedError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
  readonly rule: WebhookTargetRule = 'address-not-allowed';

  constructor(
    readonly hostname: string,
    readonly addresses: readonly string[],
  ) {
    super(`${hostname} resolves only to refused addresses (${addresses.join(', ')})`);
    this.name = 'WebhookTargetRefusedError';
  }
}

/** Parses a comma list of CIDRs or single addresses (`127.0.0.0/8, ::1`); throws on a bad entry. */
export function parseCidrList(value: string | undefined): string[] {
  if (!value) return [];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  for (const entry of entries) parseCidr(entry);
  return entries;
}

function parseCidr(entry: string): { network: string; prefix: number; type: 'ipv4' | 'ipv6' } {
  const [network, prefixText, extra] = entry.split('/');
  const version = isIP(network ?? '');
  if (version === 0 || extra !== undefined) {
    throw new RangeError(`not an address or CIDR: ${entry}`);
  }
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) {
    throw new RangeError(`bad prefix length in ${entry}`);
  }
  return { network, prefix, type: version === 4 ? 'ipv4' : 'ipv6' };
}

function addressType(address: string): 'ipv4' | 'ipv6' | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

/** `[::1]` -> `::1`, `LOCALHOST.` -> `localhost`. */
function bareHostname(url: URL): string {
  const host = url.hostname.toLowerCase();
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

export class WebhookTargetPolicy {
  private readonly refused = new BlockList();
  private readonly allowedRanges = new BlockList();
  private readonly production: boolean;
  private readonly resolve: typeof dnsLookup;

  constructor(options: WebhookTargetPolicyOptions) {
    this.production = options.production;
    this.resolve = options.resolve ?? dnsLookup;
    for (const [network, prefix, type] of REFUSED_RANGES) {
      this.refused.addSubnet(network, prefix, type);
    }
    for (const entry of options.allowedCidrs ?? []) {
      const { network, prefix, type } = parseCidr(entry);
      this.allowedRanges.addSubnet(network, prefix, type);
    }
  }

  /** An IP address may be connected to: outside the refused ranges, or inside an allowed one. */
  isAddressAllowed(address: string): boolean {
    const type = addressType(address);
    if (!type) return false;
    if (this.allowedRanges.check(address, type)) return true;
    return !this.refused.check(address, type);
  }

  /**
   * The rules a URL must meet when a subscription is written and again before each delivery
   * (the configuration may have changed since). A name other than `localhost` is not resolved
   * here: its addresses are checked when it is connected to.
   */
  checkUrl(value: string): WebhookTargetCheck {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return refuse('url-malformed', 'url must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return refuse('scheme-not-allowed', 'url must use https (or http outside production)');
    }
    if (this.production && url.protocol !== 'https:') {
      return refuse('https-required', 'url must use https in production');
    }
    if (url.username !== '' || url.password !== '') {
      return refuse('userinfo-not-allowed', 'url must not contain a user name or password');
    }
    const host = bareHostname(url);
    if (host === '') return refuse('url-malformed', 'url must name a host');
    // RFC 6761: localhost and its subdomains are loopback whatever DNS says.
    const literal = host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : host;
    if (addressType(literal) && !this.isAddressAllowed(literal)) {
      return refuse(
        'address-not-allowed',
        'url must not point to a private, loopback, link-local or unspecified address',
      );
    }
    return { allowed: true, url };
  }

  /**
   * A `lookup` for node:http(s).request: resolves as node:dns would and keeps only the allowed
   * addresses; none left fails the request with WebhookTargetRefusedError before any connection.
   * Node does not call `lookup` for an IP literal host, which checkUrl covers.
   */
  readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    this.resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      const allowed = addresses.filter((entry) => this.isAddressAllowed(entry.address));
      if (allowed.length === 0) {
        callback(
          new WebhookTargetRefusedError(
            hostname,
            addresses.map((entry) => entry.address),
          ),
          [],
        );
        return;
      }
      if (options.all) {
        callback(null, allowed);
      } else {
        callback(null, allowed[0].address, allowed[0].family);
      }
    });
  };
}

function refuse(rule: WebhookTargetRule, message: string): WebhookTargetCheck {
  return { allowed: false, rule, message };
}
