import { HttpResult, rawRequest, sendJson, sendRaw } from './support/http';
import { RunningTestService } from '@bank/shared/testing';
import { BACKGROUND_OFF, createUser, selfVirtual, startCardIssue } from '@bank/card-issue/testing';
import { registration, startClientRegistration } from '@bank/client-registration/testing';
import { cardIssueRowCounts, registrationRowCounts } from './support/row-counts';
import { ErrorShape, errorShapeProblem } from './support/shapes';

/**
 * Issue 14 items 6 and 7 over real HTTP, in both services:
 * - an unknown field named like an Object.prototype member is a 400 naming it, like any other
 *   unknown field (class-transformer used to skip it, so it was dropped silently);
 * - a body of any type but JSON (a form above all) is 415, never parsed; no answer, 415 or
 *   400, quotes the body it refuses.
 */
const MARKER = 'BodyMarker5k';
const PROTOTYPE_KEYS = [
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
];

interface Service {
  name: string;
  shape: ErrorShape;
  start(): Promise<RunningTestService>;
  state(s: RunningTestService): Promise<string>;
  /** A valid body of the write route, and the path of a nested object in it. */
  valid(url: string): Promise<Record<string, unknown>>;
  write: string;
  nested: string;
  /** The name an unknown field gets in the answer. */
  unknown(path: string, body: unknown): boolean;
  /** Other routes that take a body: path and method. */
  otherWrites: [string, string][];
}

const SERVICES: Service[] = [
  {
    name: 'card-issue',
    shape: 'card-issue',
    start: () => startCardIssue({ label: 'robust_strict_card', env: { ...BACKGROUND_OFF } }),
    state: (s) => cardIssueRowCounts(s.dataSource),
    valid: async (url) => selfVirtual(await createUser(url)) as unknown as Record<string, unknown>,
    write: '/api/v1/card-issue',
    nested: 'request.cardHolder',
    unknown: (path, body) =>
      (body as { errors?: Record<string, string> }).errors?.[path] ===
      `property ${path.split('.').pop()} should not exist`,
    otherWrites: [
      ['PATCH', '/api/v1/card-issue/RCARDB23112026000001/status'],
      ['POST', '/user-api/api/v1/users'],
    ],
  },
  {
    name: 'client-registration',
    shape: 'registration',
    start: () => startClientRegistration({ label: 'robust_strict_reg' }),
    state: (s) => registrationRowCounts(s.dataSource),
    valid: () => Promise.resolve(registration() as unknown as Record<string, unknown>),
    write: '/api/clients',
    nested: 'contactInfo',
    unknown: (path, body) =>
      ((body as { details?: string[] }).details ?? []).includes(`${path}: поле не предусмотрено`),
    otherWrites: [['PUT', '/api/clients/3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21/passport']],
  },
];

function at(body: Record<string, unknown>, path: string): Record<string, unknown> {
  return path.split('.').reduce((node, key) => node[key] as Record<string, unknown>, body);
}

describe.each(SERVICES)('$name: strict input', (service) => {
  let s: RunningTestService;
  beforeAll(async () => {
    s = await service.start();
  });
  afterAll(async () => {
    await s?.close();
  });

  const expectClientError = (res: HttpResult, status: number) => {
    expect({ status: res.status, problem: errorShapeProblem(res, service.shape) }).toEqual({
      status,
      problem: null,
    });
  };

  it.each(PROTOTYPE_KEYS)(
    'refuses an unknown field named %s, at the root and nested, as any unknown field',
    async (key) => {
      const body = await service.valid(s.url);
      const before = await service.state(s);
      body[key] = 'x';
      at(body, service.nested)[key] = 'y';
      const res = await sendJson(`${s.url}${service.write}`, 'POST', body);
      expectClientError(res, 400);
      expect(service.unknown(key, res.body)).toBe(true);
      expect(service.unknown(`${service.nested}.${key}`, res.body)).toBe(true);
      expect(await service.state(s)).toBe(before);
    },
  );

  const form = `lastName=${MARKER}&contactInfo[phone]=79990001122&request[cardOwner]=${MARKER}`;
  const bodies: [string, string, string][] = [
    ['a form (application/x-www-form-urlencoded)', 'application/x-www-form-urlencoded', form],
    ['a form with a charset', 'application/x-www-form-urlencoded; charset=utf-8', form],
    [
      'multipart/form-data',
      'multipart/form-data; boundary=b',
      `--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n${MARKER}\r\n--b--\r\n`,
    ],
    ['XML', 'application/xml', `<x>${MARKER}</x>`],
    ['text/plain holding JSON', 'text/plain', JSON.stringify({ lastName: MARKER })],
    ['a JSON look-alike type', 'application/jsonx', JSON.stringify({ lastName: MARKER })],
    ['no content type', '', JSON.stringify({ lastName: MARKER })],
  ];

  it.each(bodies)('answers %s with 415, unparsed and unquoted', async (_name, type, payload) => {
    const before = await service.state(s);
    for (const [method, path] of [['POST', service.write], ...service.otherWrites]) {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const res = await sendRaw(s.url, rawRequest(method, path, { headers, body: payload }));
      expectClientError(res, 415);
      expect(res.text).not.toContain(MARKER);
    }
    expect(await service.state(s)).toBe(before);
  });

  it.each([
    ['malformed JSON', `{"lastName": "${MARKER}",`],
    ['a JSON string', JSON.stringify(`${MARKER} 79990001122`)],
    [
      'wrong types everywhere',
      JSON.stringify({
        lastName: [MARKER],
        request: { cardOwner: { x: MARKER } },
        contactInfo: MARKER,
      }),
    ],
    // An unknown field is named by its path (the client's own key), never with its value.
    ['an unknown field', JSON.stringify({ unknownField: MARKER })],
  ])('a 400 for %s never quotes the body', async (_name, payload) => {
    const res = await sendRaw(
      s.url,
      rawRequest('POST', service.write, {
        headers: { 'content-type': 'application/json' },
        body: payload,
      }),
    );
    expectClientError(res, 400);
    expect(res.text).not.toContain(MARKER);
  });
});
