import type { LookupAddress } from 'node:dns';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { WebhookTargetPolicy, WebhookTargetRefusedError, parseCidrList } from './target-policy';

const development = new WebhookTargetPolicy({ production: false });

describe('WebhookTargetPolicy.isAddressAllowed', () => {
  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.255.0.9',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '100.127.255.254',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'FE80::abcd',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(development.isAddressAllowed(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
  ])('allows %s', (address) => {
    expect(development.isAddressAllowed(address)).toBe(true);
  });

  it('lets the configured ranges through, in both address forms, and nothing else', () => {
    const tests = new WebhookTargetPolicy({ production: false, allowedCidrs: ['127.0.0.0/8'] });
    expect(tests.isAddressAllowed('127.0.0.1')).toBe(true);
    expect(tests.isAddressAllowed('::ffff:127.0.0.1')).toBe(true);
    expect(tests.isAddressAllowed('::1')).toBe(false);
    expect(tests.isAddressAllowed('10.0.0.1')).toBe(false);
  });
});

/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries, every entry, written out here apart
 * from the code's own table, and the ranges besides them that are never a public host
 * (multicast; for IPv6, everything outside global unicast 2000::/3).
 */
const IPV4_REGISTRY = [
  '0.0.0.0/8', // "This network", RFC 791
  '0.0.0.0/32', // "This host on this network", RFC 1122
  '10.0.0.0/8', // Private-Use, RFC 1918
  '100.64.0.0/10', // Shared Address Space, RFC 6598
  '127.0.0.0/8', // Loopback, RFC 1122
  '169.254.0.0/16', // Link Local, RFC 3927
  '172.16.0.0/12', // Private-Use, RFC 1918
  '192.0.0.0/24', // IETF Protocol Assignments, RFC 6890
  '192.0.0.0/29', // IPv4 Service Continuity Prefix, RFC 7335
  '192.0.0.8/32', // IPv4 dummy address, RFC 7600
  '192.0.0.9/32', // Port Control Protocol Anycast, RFC 7723
  '192.0.0.10/32', // TURN Anycast, RFC 8155
  '192.0.0.170/32', // NAT64/DNS64 Discovery, RFC 8880
  '192.0.0.171/32', // NAT64/DNS64 Discovery, RFC 8880
  '192.0.2.0/24', // TEST-NET-1, RFC 5737
  '192.31.196.0/24', // AS112-v4, RFC 7535
  '192.52.193.0/24', // AMT, RFC 7450
  '192.88.99.0/24', // Deprecated 6to4 Relay Anycast, RFC 7526
  '192.88.99.2/32', // 6a44-relay anycast address, RFC 6751
  '192.168.0.0/16', // Private-Use, RFC 1918
  '192.175.48.0/24', // Direct Delegation AS112 Service, RFC 7534
  '198.18.0.0/15', // Benchmarking, RFC 2544
  '198.51.100.0/24', // TEST-NET-2, RFC 5737
  '203.0.113.0/24', // TEST-NET-3, RFC 5737
  '240.0.0.0/4', // Reserved, RFC 1112
  '255.255.255.255/32', // Limited Broadcast, RFC 919
  '224.0.0.0/4', // Multicast, RFC 5771 (not in the special-purpose registry)
];
const IPV6_REGISTRY = [
  '::1/128', // Loopback, RFC 4291
  '::/128', // Unspecified, RFC 4291
  '64:ff9b:1::/48', // IPv4-IPv6 Translat. (local use), RFC 8215
  '100::/64', // Discard-Only, RFC 6666
  '2001::/23', // IETF Protocol Assignments, RFC 2928
  '2001::/32', // TEREDO, RFC 4380
  '2001:1::1/128', // PCP Anycast, RFC 7723
  '2001:1::2/128', // TURN Anycast, RFC 8155
  '2001:1::3/128', // DNS-SD SRP Anycast, RFC 9665
  '2001:2::/48', // Benchmarking, RFC 5180
  '2001:3::/32', // AMT, RFC 7450
  '2001:4:112::/48', // AS112-v6, RFC 7535
  '2001:10::/28', // Deprecated ORCHID, RFC 4843
  '2001:20::/28', // ORCHIDv2, RFC 7343
  '2001:30::/28', // DETs, RFC 9374
  '2001:db8::/32', // Documentation, RFC 3849
  '2002::/16', // 6to4, RFC 3056
  '2620:4f:8000::/48', // Direct Delegation AS112 Service, RFC 7534
  '3fff::/20', // Documentation, RFC 9637
  '5f00::/16', // SRv6 SIDs, RFC 9602
  'fc00::/7', // Unique-Local, RFC 4193
  'fe80::/10', // Link-Local Unicast, RFC 4291
  '::/96', // IPv4-compatible (deprecated), RFC 4291
  'fec0::/10', // Site-local (deprecated), RFC 3879
  'ff00::/8', // Multicast, RFC 4291
];
/** Outside IPv6 global unicast: below 2000:: and from 4000:: up. */
const IPV6_NOT_GLOBAL = ['::/3', '4000::/2', '8000::/1'];

type Family = 4 | 6;
const BITS = { 4: 32, 6: 128 } as const;

function valueOf(address: string, family: Family): bigint {
  if (family === 4) return address.split('.').reduce((v, part) => (v << 8n) | BigInt(part), 0n);
  const [head, tail] = address.split('::');
  const groups = (part?: string) => (part ? part.split(':') : []);
  const all =
    tail === undefined
      ? groups(head)
      : [
          ...groups(head),
          ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'),
          ...groups(tail),
        ];
  return all.reduce((v, group) => (v << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function textOf(value: bigint, family: Family): string {
  if (family === 4)
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  return Array.from({ length: 8 }, (_, i) =>
    ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16),
  ).join(':');
}

function rangeOf(cidr: string, family: Family): [bigint, bigint] {
  const [network, prefix] = cidr.split('/');
  const size = 1n << BigInt(BITS[family] - Number(prefix));
  const first = valueOf(network, family);
  return [first, first + size - 1n];
}

/**
 * The nearest address beyond `edge` (stepping by `step`, -1n or 1n) that lies in none of the
 * ranges: hops over each range it meets; undefined past the end of the address space.
 */
function publicNeighbour(
  edge: bigint,
  step: bigint,
  family: Family,
  ranges: [bigint, bigint][],
): bigint | undefined {
  const max = (1n << BigInt(BITS[family])) - 1n;
  let candidate = edge + step;
  for (;;) {
    if (candidate < 0n || candidate > max) return undefined;
    const inside = ranges.find(([first, last]) => candidate >= first && candidate <= last);
    if (!inside) return candidate;
    candidate = step < 0n ? inside[0] - 1n : inside[1] + 1n;
  }
}

describe('WebhookTargetPolicy: every entry of the IANA special-purpose registries', () => {
  const policy = new WebhookTargetPolicy({ production: true, interfaces: () => ({}) });
  const cases = [
    ...IPV4_REGISTRY.map((cidr) => [cidr, 4] as const),
    ...IPV6_REGISTRY.map((cidr) => [cidr, 6] as const),
  ];
  const refusedRanges = {
    4: IPV4_REGISTRY.map((cidr) => rangeOf(cidr, 4)),
    6: [...IPV6_REGISTRY, ...IPV6_NOT_GLOBAL].map((cidr) => rangeOf(cidr, 6)),
  };

  it.each(cases)(
    '%s: its first and last addresses are refused, the public ones next to it are not',
    (cidr, family) => {
      const [first, last] = rangeOf(cidr, family);
      const verdicts = (values: (bigint | undefined)[]) =>
        values
          .filter((value): value is bigint => value !== undefined)
          .map((value) => [textOf(value, family), policy.isAddressAllowed(textOf(value, family))]);
      expect(verdicts([first, last])).toEqual(
        verdicts([first, last]).map(([text]) => [text, false]),
      );
      const neighbours = [
        publicNeighbour(first, -1n, family, refusedRanges[family]),
        publicNeighbour(last, 1n, family, refusedRanges[family]),
      ];
      expect(verdicts(neighbours)).toEqual(verdicts(neighbours).map(([text]) => [text, true]));
    },
  );

  it('finds a public neighbour for every block (the walk above is never vacuous)', () => {
    const without = cases.filter(([cidr, family]) => {
      const [first, last] = rangeOf(cidr, family);
      return [
        publicNeighbour(first, -1n, family, refusedRanges[family]),
        publicNeighbour(last, 1n, family, refusedRanges[family]),
      ].every((value) => value === undefined);
    });
    expect(without).toEqual([]);
  });

  it.each([
    // The gaps that were open: benchmarking, reserved, NAT64, 6to4, IPv4-compatible,
    // site-local, multicast, broadcast.
    ['198.18.0.1', false],
    ['198.19.255.254', false],
    ['240.0.0.1', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['239.255.255.250', false],
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::10.0.0.1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['2002:7f00:1::1', false],
    ['2002:c0a8:101::1', false],
    ['::127.0.0.1', false],
    ['::10.0.0.1', false],
    ['::8.8.8.8', false],
    ['fec0::1', false],
    ['ff02::1', false],
    ['ff0e::1', false],
    ['2001::1', false],
    ['fe80::1%eth0', false],
    // Globally reachable through them: a public IPv4 address mapped or behind NAT64.
    ['64:ff9b::8.8.8.8', true],
    ['64:ff9b::808:808', true],
    ['::ffff:8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['1.1.1.1', true],
  ])('%s is allowed: %s', (address, allowed) => {
    expect(policy.isAddressAllowed(address)).toBe(allowed);
  });
});

describe('WebhookTargetPolicy: this host', () => {
  const host = () => ({
    eth0: [
      {
        address: '8.8.4.4',
        netmask: '255.255.255.0',
        family: 'IPv4' as const,
        mac: '02:00:00:00:00:01',
        internal: false,
        cidr: '8.8.4.4/24',
      },
      {
        address: '2001:4860:4860::8844',
        netmask: 'ffff:ffff:ffff:ffff::',
        family: 'IPv6' as const,
        mac: '02:00:00:00:00:01',
        internal: false,
        cidr: '2001:4860:4860::8844/64',
        scopeid: 0,
      },
    ],
  });

  it("refuses the host's own interface addresses and the broadcast address of its IPv4 subnets, public as they may be", () => {
    const policy = new WebhookTargetPolicy({ production: false, interfaces: host });
    expect(policy.isAddressAllowed('8.8.4.4')).toBe(false);
    expect(policy.isAddressAllowed('::ffff:8.8.4.4')).toBe(false);
    expect(policy.isAddressAllowed('8.8.4.255')).toBe(false);
    expect(policy.isAddressAllowed('2001:4860:4860:0:0:0:0:8844')).toBe(false);
    expect(policy.checkUrl('https://8.8.4.4/hook')).toMatchObject({
      allowed: false,
      rule: 'address-not-allowed',
    });
    // Its neighbours are other hosts.
    expect(policy.isAddressAllowed('8.8.4.5')).toBe(true);
    expect(policy.isAddressAllowed('2001:4860:4860::8845')).toBe(true);
    // WEBHOOK_ALLOWED_TARGET_CIDRS overrides it, as every other rule.
    const allowing = new WebhookTargetPolicy({
      production: false,
      interfaces: host,
      allowedCidrs: ['8.8.4.4/32'],
    });
    expect(allowing.isAddressAllowed('8.8.4.4')).toBe(true);
  });

  it('reads the real interfaces by default: every address of this machine is refused', () => {
    const policy = new WebhookTargetPolicy({ production: false });
    const addresses = Object.values(networkInterfaces())
      .flatMap((infos) => infos ?? [])
      .map((info) => info.address);
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((address) => policy.isAddressAllowed(address))).toEqual([]);
  });
});

describe('WebhookTargetPolicy.checkUrl', () => {
  const production = new WebhookTargetPolicy({ production: true });

  it.each([
    ['https://hooks.example.com/card-issue', development],
    ['http://hooks.example.com:8080/x?y=1', development],
    ['https://hooks.example.com/card-issue', production],
    ['https://8.8.8.8/', production],
  ])('allows %s', (url, policy) => {
    expect(policy.checkUrl(url)).toMatchObject({ allowed: true });
  });

  it.each([
    ['not a url', development, 'url-malformed'],
    ['ftp://hooks.example.com/', development, 'scheme-not-allowed'],
    ['file:///etc/passwd', development, 'scheme-not-allowed'],
    ['http://hooks.example.com/', production, 'https-required'],
    ['https://user:pw@hooks.example.com/', development, 'userinfo-not-allowed'],
    ['https://user@hooks.example.com/', development, 'userinfo-not-allowed'],
    ['http://127.0.0.1:3000/', development, 'address-not-allowed'],
    ['http://2130706433/', development, 'address-not-allowed'],
    ['http://0x7f.1/', development, 'address-not-allowed'],
    ['http://[::1]/', development, 'address-not-allowed'],
    ['http://[::ffff:127.0.0.1]/', development, 'address-not-allowed'],
    ['http://169.254.169.254/latest/meta-data', development, 'address-not-allowed'],
    ['http://10.0.0.5/', development, 'address-not-allowed'],
    ['http://localhost:3000/', development, 'address-not-allowed'],
    ['http://LOCALHOST./', development, 'address-not-allowed'],
    ['http://api.localhost/', development, 'address-not-allowed'],
    ['https://[fe80::1]/', production, 'address-not-allowed'],
  ])('refuses %s (%#) by rule %s', (url, policy, rule) => {
    expect(policy.checkUrl(url)).toMatchObject({ allowed: false, rule });
  });

  it('allows loopback URLs when configured (the tests)', () => {
    const tests = new WebhookTargetPolicy({ production: false, allowedCidrs: ['127.0.0.0/8'] });
    expect(tests.checkUrl('http://127.0.0.1:3000/hook')).toMatchObject({ allowed: true });
    expect(tests.checkUrl('http://localhost:3000/hook')).toMatchObject({ allowed: true });
    expect(tests.checkUrl('http://10.0.0.1/hook')).toMatchObject({ allowed: false });
  });
});

describe('parseCidrList', () => {
  it('reads a comma list, single addresses included', () => {
    expect(parseCidrList(' 127.0.0.0/8, ::1 ,10.0.0.0/8,')).toEqual([
      '127.0.0.0/8',
      '::1',
      '10.0.0.0/8',
    ]);
    expect(parseCidrList(undefined)).toEqual([]);
    expect(parseCidrList('')).toEqual([]);
  });

  it.each(['127.0.0.0/33', 'example.com', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x'])(
    'refuses %s',
    (entry) => {
      expect(() => parseCidrList(entry)).toThrow(RangeError);
    },
  );
});

describe('WebhookTargetPolicy.lookup (delivery time)', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A resolver where `rebound.example` is whatever the test says, as a rebinding DNS would. */
  function resolverTo(addresses: LookupAddress[]) {
    return ((_hostname: string, _options: unknown, callback: (...args: unknown[]) => void) => {
      callback(null, addresses);
    }) as unknown as typeof import('node:dns').lookup;
  }

  function get(policy: WebhookTargetPolicy): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: 'rebound.example', port, path: '/', lookup: policy.lookup },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('refuses a name that resolves to loopback before connecting', async () => {
    const policy = new WebhookTargetPolicy({
      production: false,
      resolve: resolverTo([{ address: '127.0.0.1', family: 4 }]),
    });
    // The URL itself passes: the name is only checked when it resolves.
    expect(policy.checkUrl(`http://rebound.example:${port}/`)).toMatchObject({ allowed: true });
    await expect(get(policy)).rejects.toBeInstanceOf(WebhookTargetRefusedError);
  });

  it('connects when the resolved address is allowed by configuration', async () => {
    const policy = new WebhookTargetPolicy({
      production: false,
      allowedCidrs: ['127.0.0.0/8'],
      resolve: resolverTo([{ address: '127.0.0.1', family: 4 }]),
    });
    await expect(get(policy)).resolves.toBe('reached');
  });

  it('keeps only the allowed addresses of a mixed answer', async () => {
    const policy = new WebhookTargetPolicy({
      production: false,
      allowedCidrs: ['127.0.0.0/8'],
      resolve: resolverTo([
        { address: '10.0.0.1', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ]),
    });
    const answer = await new Promise<unknown>((resolve, reject) =>
      policy.lookup('x', { all: true }, (error, addresses) =>
        error ? reject(error) : resolve(addresses),
      ),
    );
    expect(answer).toEqual([{ address: '127.0.0.1', family: 4 }]);
    const single = await new Promise<unknown[]>((resolve, reject) =>
      policy.lookup('x', {}, (error, address, family) =>
        error ? reject(error) : resolve([address, family]),
      ),
    );
    expect(single).toEqual(['127.0.0.1', 4]);
  });

  it('passes resolver errors through', async () => {
    const policy = new WebhookTargetPolicy({ production: false });
    await expect(
      new Promise((resolve, reject) =>
        policy.lookup('no-such-host.invalid', {}, (error, address) =>
          error ? reject(error) : resolve(address),
        ),
      ),
    ).rejects.toMatchObject({ code: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/) });
  });
});
