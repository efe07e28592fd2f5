import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/**
 * Where a webhook may be sent (docs/webhooks.md "Safety"). A subscription's URL is chosen by an
 * API client, so without this policy the service would POST on the client's behalf to its own
 * loopback, the cluster network or the cloud metadata address (SSRF). The policy is checked
 * twice: on the URL when a subscription is written (literal addresses, `localhost`), and on
 * every address the name resolves to at delivery time, inside the HTTP request's own `lookup`,
 * so the address checked is the address connected to (a name that resolves to a public address
 * at subscription time and to 127.0.0.1 later — DNS rebinding — is refused then).
 */

/** A stable name per rule, used in the API's 400 message (a delivery's log says only `target refused`). */
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
  /**
   * This host's network interfaces, read at every check (they change: DHCP, containers);
   * os.networkInterfaces by default, a fake in tests.
   */
  interfaces?: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
}

/** One block of an IANA special-purpose address registry, or another range never public. */
export interface SpecialPurposeBlock {
  /** The block as CIDR. */
  cidr: string;
  /** The registry's name for it. */
  name: string;
  /** Where it is defined. */
  rfc: string;
}

/**
 * The IANA IPv4 Special-Purpose Address Registry (RFC 6890; iana.org/assignments/
 * iana-ipv4-special-registry), every entry, and the multicast space beside it. Every block is
 * refused, those the registry marks "Globally Reachable: True" included (PCP and TURN anycast,
 * AS112, AMT): they sit inside blocks that are not, and no webhook receiver lives at a protocol's
 * anycast address.
 */
export const IPV4_SPECIAL_PURPOSE: readonly SpecialPurposeBlock[] = [
  { cidr: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791, section 3.2' },
  { cidr: '0.0.0.0/32', name: '"This host on this network"', rfc: 'RFC 1122, section 3.2.1.3' },
  { cidr: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918' },
  { cidr: '100.64.0.0/10', name: 'Shared Address Space', rfc: 'RFC 6598' },
  { cidr: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122, section 3.2.1.3' },
  { cidr: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927' },
  { cidr: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918' },
  { cidr: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890, section 2.1' },
  { cidr: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335' },
  { cidr: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600' },
  { cidr: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723' },
  { cidr: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155' },
  { cidr: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050' },
  { cidr: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050' },
  { cidr: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737' },
  { cidr: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535' },
  { cidr: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450' },
  { cidr: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526' },
  { cidr: '192.88.99.2/32', name: '6a44-relay anycast address', rfc: 'RFC 6751' },
  { cidr: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918' },
  { cidr: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534' },
  { cidr: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544' },
  { cidr: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737' },
  { cidr: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737' },
  { cidr: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112, section 4' },
  { cidr: '255.255.255.255/32', name: 'Limited Broadcast', rfc: 'RFC 8190, RFC 919 section 7' },
  // Not special-purpose but never a unicast host: the IPv4 Multicast Address Space registry.
  { cidr: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771' },
];

/**
 * The IANA IPv6 Special-Purpose Address Registry (RFC 6890; iana.org/assignments/
 * iana-ipv6-special-registry), every entry, refused like the IPv4 ones except the two that
 * carry an IPv4 address (IPV6_EMBEDDING_IPV4), and the ranges outside global unicast that the
 * policy refuses anyway (RFC 4291: only 2000::/3 is global unicast), listed for the reader.
 */
export const IPV6_SPECIAL_PURPOSE: readonly SpecialPurposeBlock[] = [
  { cidr: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291' },
  { cidr: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291' },
  { cidr: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat. (local use)', rfc: 'RFC 8215' },
  { cidr: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666' },
  { cidr: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928' },
  { cidr: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380, RFC 8190' },
  { cidr: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723' },
  { cidr: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155' },
  { cidr: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', rfc: 'RFC 9665' },
  { cidr: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180' },
  { cidr: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450' },
  { cidr: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535' },
  { cidr: '2001:10::/28', name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843' },
  { cidr: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343' },
  {
    cidr: '2001:30::/28',
    name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix',
    rfc: 'RFC 9374',
  },
  { cidr: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849' },
  { cidr: '2002::/16', name: '6to4', rfc: 'RFC 3056' },
  { cidr: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534' },
  { cidr: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637' },
  { cidr: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602' },
  { cidr: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190' },
  { cidr: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291' },
  // Outside 2000::/3, so refused by that rule; named here for what they are.
  { cidr: '::/96', name: 'IPv4-compatible (deprecated)', rfc: 'RFC 4291, section 2.5.5.1' },
  { cidr: 'fec0::/10', name: 'Site-local (deprecated)', rfc: 'RFC 3879' },
  { cidr: 'ff00::/8', name: 'Multicast', rfc: 'RFC 4291, section 2.7' },
];

/**
 * The registry's IPv6 blocks whose last 32 bits are an IPv4 address that a connection really
 * reaches: judged by that IPv4 address (so `::ffff:127.0.0.1` and `64:ff9b::10.0.0.1` are
 * refused, `64:ff9b::8.8.8.8` through a NAT64 gateway is not).
 */
export const IPV6_EMBEDDING_IPV4: readonly SpecialPurposeBlock[] = [
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped Address', rfc: 'RFC 4291' },
  { cidr: '64:ff9b::/96', name: 'IPv4-IPv6 Translat. (NAT64 well-known prefix)', rfc: 'RFC 6052' },
];

/** IPv6 global unicast (RFC 4291, section 2.4; the IANA IPv6 Address Space registry). */
const GLOBAL_UNICAST_IPV6 = '2000::/3';

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

/** `fe80::1%eth0` -> `fe80::1`: the zone index says which link, not which address. */
const withoutZone = (address: string) => address.split('%')[0];

/** a.b.c.d as a 32-bit number. */
function ipv4Value(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function ipv4Text(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** An IPv6 address (valid for net.isIP, no zone) as its 128-bit value. */
function ipv6Value(address: string): bigint {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Value(dotted[1]);
    text = `${text.slice(0, dotted.index)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const all =
    tail === undefined
      ? groups(head)
      : [
          ...groups(head),
          ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'),
          ...groups(tail),
        ];
  return all.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** A BlockList of the blocks' CIDRs. */
function blockListOf(blocks: readonly SpecialPurposeBlock[], type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const block of blocks) {
    const [network, prefix] = block.cidr.split('/');
    list.addSubnet(network, Number(prefix), type);
  }
  return list;
}

const REFUSED_IPV4 = blockListOf(IPV4_SPECIAL_PURPOSE, 'ipv4');
const REFUSED_IPV6 = blockListOf(IPV6_SPECIAL_PURPOSE, 'ipv6');
const EMBEDDING_IPV4 = blockListOf(IPV6_EMBEDDING_IPV4, 'ipv6');
const GLOBAL_UNICAST = blockListOf(
  [{ cidr: GLOBAL_UNICAST_IPV6, name: 'Global Unicast', rfc: 'RFC 4291' }],
  'ipv6',
);

/** The IPv4 address an IPv4-mapped or NAT64 IPv6 address reaches; undefined for any other. */
function embeddedIpv4(address: string): string | undefined {
  if (!EMBEDDING_IPV4.check(address, 'ipv6')) return undefined;
  return ipv4Text(Number(ipv6Value(address) & 0xffffffffn));
}

/**
 * This host's own addresses, every interface's (a connection to one reaches this host, whatever
 * range it is in), and the broadcast address of each IPv4 subnet it is on.
 */
function ownAddresses(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): BlockList {
  const list = new BlockList();
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      const address = withoutZone(info.address);
      const type = addressType(address);
      if (!type) continue;
      list.addAddress(address, type);
      const prefix = Number(info.cidr?.split('/')[1]);
      if (type === 'ipv4' && prefix >= 0 && prefix <= 30) {
        const size = 2 ** (32 - prefix);
        list.addAddress(ipv4Text(Math.floor(ipv4Value(address) / size) * size + size - 1), 'ipv4');
      }
    }
  }
  return list;
}

/** `[::1]` -> `::1`, `LOCALHOST.` -> `localhost`. */
function bareHostname(url: URL): string {
  const host = url.hostname.toLowerCase();
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

export class WebhookTargetPolicy {
  private readonly allowedRanges = new BlockList();
  private readonly production: boolean;
  private readonly resolve: typeof dnsLookup;
  private readonly interfaces: () => NodeJS.Dict<NetworkInterfaceInfo[]>;

  constructor(options: WebhookTargetPolicyOptions) {
    this.production = options.production;
    this.resolve = options.resolve ?? dnsLookup;
    this.interfaces = options.interfaces ?? networkInterfaces;
    for (const entry of options.allowedCidrs ?? []) {
      const { network, prefix, type } = parseCidr(entry);
      this.allowedRanges.addSubnet(network, prefix, type);
    }
  }

  /**
   * An IP address may be connected to: it lies in an allowed range (WEBHOOK_ALLOWED_TARGET_CIDRS,
   * which overrides every other rule), or it is globally reachable: outside every block of
   * IPV4_SPECIAL_PURPOSE, or for IPv6 inside 2000::/3 and outside IPV6_SPECIAL_PURPOSE (an
   * IPv4-mapped or NAT64 address is judged by the IPv4 address it carries), and not one of this
   * host's own addresses.
   */
  isAddressAllowed(address: string): boolean {
    const bare = withoutZone(address);
    const type = addressType(bare);
    if (!type) return false;
    if (this.allowedRanges.check(bare, type)) return true;
    const ipv4 = type === 'ipv4' ? bare : embeddedIpv4(bare);
    if (ipv4 !== undefined) {
      if (type === 'ipv6' && this.allowedRanges.check(ipv4, 'ipv4')) return true;
      return !REFUSED_IPV4.check(ipv4, 'ipv4') && !this.isOwnAddress(ipv4, 'ipv4');
    }
    return (
      GLOBAL_UNICAST.check(bare, 'ipv6') &&
      !REFUSED_IPV6.check(bare, 'ipv6') &&
      !this.isOwnAddress(bare, 'ipv6')
    );
  }

  private isOwnAddress(address: string, type: 'ipv4' | 'ipv6'): boolean {
    return ownAddresses(this.interfaces()).check(address, type);
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
        "url must point to a globally reachable address (not private, loopback, link-local, reserved, multicast or this host's own)",
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
