import { HttpResult, rawRequest, sendRaw } from './support/http';
import { RunningTestService } from '@bank/shared/testing';
import { BACKGROUND_OFF, SECRET, startCardIssue } from '@bank/card-issue/testing';
import { startClientRegistration } from '@bank/client-registration/testing';
import { cardIssueRowCounts, registrationRowCounts } from './support/row-counts';
import { ErrorShape, errorShapeProblem } from './support/shapes';

interface AbuseCase {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Acceptable statuses; every one is a 4xx. */
  expect: number[];
}

const MIB = 1024 * 1024;
const JSON_CT = { 'content-type': 'application/json' };

/** Requests no client library would send, for one write route, one read route per id kind. */
function casesFor(write: string, reads: string[], validJson: string): AbuseCase[] {
  const cases: AbuseCase[] = [
    {
      name: 'malformed JSON',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: '{"a": ',
      expect: [400],
    },
    {
      name: 'JSON with a trailing comma',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: '{"a": 1,}',
      expect: [400],
    },
    {
      name: 'a JSON string',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: '"just a string"',
      expect: [400],
    },
    {
      name: 'a JSON array',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: '[1,2,3]',
      expect: [400],
    },
    {
      name: 'JSON null',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: 'null',
      expect: [400],
    },
    {
      name: 'JSON nested 1,000 levels',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: '['.repeat(1000) + ']'.repeat(1000),
      expect: [400],
    },
    {
      name: 'JSON nested 5,000 levels',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
      expect: [400],
    },
    {
      name: 'a BOM before JSON',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: '\ufeff' + validJson,
      expect: [400, 201, 409],
    },
    {
      name: 'an empty body declared as JSON',
      method: 'POST',
      path: write,
      headers: { ...JSON_CT, 'content-length': '0' },
      expect: [400],
    },
    {
      name: 'an empty body without content type',
      method: 'POST',
      path: write,
      headers: { 'content-length': '0' },
      expect: [400, 415],
    },
    {
      name: 'text/plain',
      method: 'POST',
      path: write,
      headers: { 'content-type': 'text/plain' },
      body: validJson,
      expect: [415],
    },
    {
      name: 'application/xml',
      method: 'POST',
      path: write,
      headers: { 'content-type': 'application/xml' },
      body: '<a/>',
      expect: [415],
    },
    // Nest's Fastify adapter registers a form parser: the form reaches validation (400).
    {
      name: 'form-urlencoded',
      method: 'POST',
      path: write,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
      expect: [400, 415],
    },
    {
      name: 'multipart/form-data',
      method: 'POST',
      path: write,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n',
      expect: [415],
    },
    {
      name: 'a body without content type',
      method: 'POST',
      path: write,
      body: validJson,
      expect: [415],
    },
    {
      name: 'a garbage content type',
      method: 'POST',
      path: write,
      headers: { 'content-type': ';;;/' },
      body: validJson,
      expect: [400, 415],
    },
    {
      name: 'invalid UTF-8 in JSON',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      expect: [400],
    },
    {
      name: 'a body over 1 MiB',
      method: 'POST',
      path: write,
      headers: JSON_CT,
      body: JSON.stringify({ pad: 'x'.repeat(MIB + 10) }),
      expect: [413],
    },
    {
      name: 'a Content-Length over 1 MiB',
      method: 'POST',
      path: write,
      headers: { ...JSON_CT, 'content-length': String(50 * MIB) },
      body: '{}',
      expect: [413],
    },
    {
      name: 'a very long URL (8 KB)',
      method: 'GET',
      path: `${reads[0]}${'a'.repeat(8_000)}`,
      expect: [400, 404, 414],
    },
    {
      name: 'a long query string (8 KB)',
      method: 'GET',
      path: `${reads[0]}x?q=${'a'.repeat(8_000)}`,
      expect: [400, 404],
    },
  ];
  for (const read of reads) {
    const ids = [
      ['a 200-character id', 'A'.repeat(200)],
      ['a 1,000-character id', 'A'.repeat(1_000)],
      ['path traversal', '..%2f..%2f..%2fetc%2fpasswd'],
      ['double-encoded traversal', '..%252f..%252fetc'],
      ['SQL metacharacters', encodeURIComponent("X1' OR '1'='1")],
      ['a SQL comment', encodeURIComponent('1;DROP TABLE clients;--')],
      ['a NUL byte', 'RCARDB%00'],
      ['a bad percent-encoding', '%zz%'],
      ['unicode', encodeURIComponent('Ж😀')],
    ];
    for (const [name, id] of ids) {
      cases.push({
        name: `${read}{${name}}`,
        method: 'GET',
        path: `${read}${id}`,
        expect: [400, 404, 414],
      });
    }
  }
  return cases;
}

function describeAbuse(
  service: string,
  shape: ErrorShape,
  start: () => Promise<RunningTestService>,
  state: (s: RunningTestService) => Promise<string>,
  cases: AbuseCase[],
  headers: Record<string, string> = {},
): void {
  describe(`${service}: raw HTTP abuse`, () => {
    let s: RunningTestService;
    beforeAll(async () => {
      s = await start();
    });
    afterAll(async () => {
      await s?.close();
    });

    const check = async (c: AbuseCase) => {
      const before = await state(s);
      const res: HttpResult = await sendRaw(
        s.url,
        rawRequest(c.method, c.path, { headers: { ...headers, ...c.headers }, body: c.body }),
      );
      // Only an accepted body may succeed (a BOM before valid JSON is still JSON to Fastify).
      const problem =
        res.status < 300 && c.expect.includes(res.status) ? null : errorShapeProblem(res, shape);
      const seen = { status: res.status, problem, body: res.text.slice(0, 300) };
      expect(seen).toEqual({
        ...seen,
        status: c.expect.includes(res.status) ? res.status : c.expect,
        problem: null,
      });
      if (res.status !== 201) expect(await state(s)).toBe(before);
    };
    it.each(cases.map((c) => [c.name, c] as const))(
      '%s: a clear 4xx in the error shape',
      (_name, c) => check(c),
    );
  });
}

const cardIssueValid = JSON.stringify({
  request: { cardOwner: 'XNONE1', formFactor: 'VIRTUAL', cardHolder: { nameless: true } },
});
const registrationValid = JSON.stringify({ lastName: 'Петров' });

describeAbuse(
  'card-issue',
  'card-issue',
  () => startCardIssue({ label: 'robust_abuse_card', env: { ...BACKGROUND_OFF } }),
  (s) => cardIssueRowCounts(s.dataSource),
  [
    ...casesFor(
      '/api/v1/card-issue',
      ['/api/v1/card-issue/', '/api/v1/card-issue/client/'],
      cardIssueValid,
    ),
    ...casesFor(
      '/user-api/api/v1/users',
      ['/user-api/api/v1/users/', '/operation-api/api/v1/operations/'],
      '{}',
    ).filter(
      (c) =>
        c.method === 'GET' ||
        c.name === 'malformed JSON' ||
        c.name === 'text/plain' ||
        c.name === 'a body over 1 MiB',
    ),
    {
      name: 'PATCH status with malformed JSON',
      method: 'PATCH',
      path: '/api/v1/card-issue/RCARDB23112026000001/status',
      headers: JSON_CT,
      body: '{',
      expect: [400],
    },
    {
      name: 'an unknown method on an existing path (405)',
      method: 'PROPFIND',
      path: '/api/v1/card-issue',
      expect: [405],
    },
    { name: 'an unknown route', method: 'GET', path: '/api/v2/nothing', expect: [404] },
  ],
  { 'x-secret': SECRET },
);

describeAbuse(
  'client-registration',
  'registration',
  () => startClientRegistration({ label: 'robust_abuse_reg' }),
  (s) => registrationRowCounts(s.dataSource),
  [
    ...casesFor('/api/clients', ['/api/clients/'], registrationValid),
    {
      name: 'PUT passport with malformed JSON',
      method: 'PUT',
      path: '/api/clients/3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21/passport',
      headers: JSON_CT,
      body: '{"passportData": [',
      expect: [400],
    },
    {
      name: 'PUT passport on a traversal id',
      method: 'PUT',
      path: '/api/clients/..%2f..%2f/passport',
      headers: JSON_CT,
      body: '{}',
      expect: [400, 404],
    },
    {
      name: 'an unknown method on an existing path (405)',
      method: 'PROPFIND',
      path: '/api/clients',
      expect: [405],
    },
  ],
);
