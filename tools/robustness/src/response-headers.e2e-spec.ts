import { HttpResult, rawRequest, sendJson, sendRaw } from './support/http';
import { RunningTestService } from '@bank/shared/testing';
import { BACKGROUND_OFF, createUser, selfVirtual, startCardIssue } from '@bank/card-issue/testing';
import { registration, startClientRegistration } from '@bank/client-registration/testing';
import { ErrorShape, errorShapeProblem } from './support/shapes';

/**
 * No caching. Every response may carry personal data (or an error about it), so
 * none may be stored by a cache: `Cache-Control: no-store` and `Pragma: no-cache`, on success
 * and errors alike. Errors Node or Fastify raise before Nest sees the request (headers too
 * large, a malformed request line, a URL or parameter too long, a malformed URL) answer in the
 * service's error shape (Russian in client-registration), with the security headers, and never
 * echo the URL.
 */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const SECURITY_HEADERS = {
  ...NO_STORE,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'strict-transport-security': expect.stringMatching(/max-age=\d+/),
  'content-security-policy': expect.stringContaining("default-src 'self'"),
  'referrer-policy': 'no-referrer',
};

/** Text that appears in a refused URL and must not come back in the answer. */
const MARKER = 'EchoMarker7q';

interface Service {
  name: string;
  shape: ErrorShape;
  start(): Promise<RunningTestService>;
  /** Requests that reach the service's handlers: a success, a 201, a 400, a 404. */
  traffic(url: string): Promise<HttpResult[]>;
  /** A route with a path parameter. */
  read: string;
}

const SERVICES: Service[] = [
  {
    name: 'card-issue',
    shape: 'card-issue',
    start: () => startCardIssue({ label: 'robust_headers_card', env: { ...BACKGROUND_OFF } }),
    read: '/api/v1/card-issue/',
    traffic: async (url) => {
      const owner = await createUser(url);
      const created = await sendJson(`${url}/api/v1/card-issue`, 'POST', selfVirtual(owner));
      const id = (created.body as { requestId: string }).requestId;
      return [
        created,
        await sendJson(`${url}/api/v1/card-issue/${id}`, 'GET', undefined),
        await sendJson(`${url}/api/v1/card-issue/client/${owner}`, 'GET', undefined),
        await sendJson(`${url}/api/v1/card-issue`, 'POST', { request: {} }),
        await sendJson(`${url}/api/v1/card-issue/RCARDB01012020000000`, 'GET', undefined),
        await sendJson(`${url}/api/health`, 'GET', undefined),
      ];
    },
  },
  {
    name: 'client-registration',
    shape: 'registration',
    start: () => startClientRegistration({ label: 'robust_headers_reg' }),
    read: '/api/clients/',
    traffic: async (url) => {
      const created = await sendJson(`${url}/api/clients`, 'POST', registration());
      const id = (created.body as { id: string }).id;
      return [
        created,
        await sendJson(`${url}/api/clients/${id}`, 'GET', undefined),
        await sendJson(`${url}/api/clients`, 'POST', {}),
        await sendJson(`${url}/api/clients/3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21`, 'GET', undefined),
        await sendJson(`${url}/api/health`, 'GET', undefined),
      ];
    },
  },
];

describe.each(SERVICES)('$name: response headers and pre-Nest errors', (service) => {
  let s: RunningTestService;
  beforeAll(async () => {
    s = await service.start();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('every answer of the API, success or error, forbids caching', async () => {
    const answers = await service.traffic(s.url);
    expect(answers.map((a) => a.status)).toContain(201);
    expect(answers.map((a) => a.status)).toContain(404);
    for (const res of answers)
      expect({ status: res.status, ...res.headers }).toMatchObject(NO_STORE);
  });

  const cases: [string, () => Buffer | string, number][] = [
    [
      'headers over 16 KiB: 431',
      () =>
        rawRequest('GET', `${service.read}${MARKER}`, { headers: { 'x-pad': 'p'.repeat(20_000) } }),
      431,
    ],
    [
      'a URL over 16 KiB: 431',
      () => rawRequest('GET', `${service.read}${MARKER}${'u'.repeat(20_000)}`),
      431,
    ],
    [
      'a malformed request line: 400',
      () => `GET /${MARKER} HTTP/1.1 extra\r\nHost: x\r\n\r\n`,
      400,
    ],
    ['a request line that is no HTTP: 400', () => `${MARKER}\r\n\r\n`, 400],
    [
      'a bad header name: 400',
      () => `GET /${MARKER} HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`,
      400,
    ],
    [
      'a path parameter over 200 characters: 414',
      () => rawRequest('GET', `${service.read}${MARKER}${'a'.repeat(300)}`),
      414,
    ],
    [
      'a malformed percent-encoding: 400',
      () => rawRequest('GET', `${service.read}${MARKER}%E0%A4%A`),
      400,
    ],
  ];

  it.each(cases)(
    '%s in the error shape, with the security headers, without the URL',
    async (_name, raw, status) => {
      const res = await sendRaw(s.url, raw());
      expect({
        status: res.status,
        problem: errorShapeProblem(res, service.shape),
        echoes: res.text.includes(MARKER),
      }).toEqual({ status, problem: null, echoes: false });
      expect(res.headers).toMatchObject(SECURITY_HEADERS);
      expect(res.headers['x-powered-by']).toBeUndefined();
    },
  );

  // Node's fetch (undici) keeps connections alive, and under load an oversized request goes
  // out now and then on a connection that has already carried an answer; such a connection was
  // closed without the 431 (the client saw "other side closed").
  it('answers every request with headers over 16 KiB 431 in the error shape, under concurrent load', async () => {
    const failure = (error: Error & { cause?: Error }) => String(error.cause ?? error);
    const oversized = (i: number) =>
      sendJson(`${s.url}${service.read}${MARKER}${i}`, 'GET', undefined, {
        'x-pad': 'p'.repeat(20_000),
      }).then(
        (res) => ({ status: res.status, problem: errorShapeProblem(res, service.shape) }),
        failure,
      );
    const normal = () =>
      sendJson(`${s.url}/api/health`, 'GET', undefined).then((res) => res.status, failure);
    for (let round = 0; round < 10; round++) {
      const [refused, answered] = await Promise.all([
        Promise.all(Array.from({ length: 50 }, (_, i) => oversized(i))),
        Promise.all(Array.from({ length: 50 }, normal)),
      ]);
      expect(refused.filter((r) => typeof r === 'string' || r.status !== 431 || r.problem)).toEqual(
        [],
      );
      expect(answered.filter((status) => status !== 200)).toEqual([]);
    }
  }, 60_000);
});
