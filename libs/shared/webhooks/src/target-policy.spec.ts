import type { LookupAddress } from 'node:dns';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
