import { HttpResult, rawRequest, sendJson, sendRaw } from './support/http';
import { RunningTestService } from '@bank/shared/testing';
import {
  aUser,
  BACKGROUND_OFF,
  createUser,
  SECRET,
  selfVirtual,
  startCardIssue,
} from '@bank/card-issue/testing';
import { registration, startClientRegistration } from '@bank/client-registration/testing';
import { cardIssueRowCounts, registrationRowCounts } from './support/row-counts';
import { ErrorShape, errorShapeProblem } from './support/shapes';

/**
 * Strict input over real HTTP, in both services:
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
  /** A route storing a name: its path, headers, and a new valid body whose name is MARKER. */
  named: { path: string; headers: Record<string, string>; body(): unknown };
  /**
   * Routes that take no body, with the status each answers, on a resource made for the test
   * (none in client-registration).
   */
  bodiless(url: string): Promise<[method: string, path: string, status: number][]>;
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
    named: {
      path: '/user-api/api/v1/users',
      headers: { 'x-secret': SECRET },
      body: () => aUser({ lastName: MARKER }),
    },
    bodiless: async (url) => {
      const created = await sendJson(`${url}/api/v1/webhook-subscriptions`, 'POST', {
        url: 'https://receiver.example.com/events',
        eventTypes: ['card_issue.created'],
      });
      expect(created.status).toBe(201);
      const subscription = `/api/v1/webhook-subscriptions/${(created.body as { id: string }).id}`;
      return [
        ['POST', `${subscription}/rotate-secret`, 200],
        ['DELETE', subscription, 204],
      ];
    },
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
    named: { path: '/api/clients', headers: {}, body: () => registration({ lastName: MARKER }) },
    bodiless: () => Promise.resolve([]),
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

  // A JSON Content-Type with no body is what many clients send on a POST or DELETE without
  // one (Fastify answered it 400 "Request body is empty but declared as JSON").
  it('takes an empty body declared as JSON on a route that takes no body', async () => {
    for (const [method, path, status] of await service.bodiless(s.url)) {
      const declaredJson: Record<string, string>[] = [
        { 'content-type': 'application/json' },
        { 'content-type': 'application/json', 'content-length': '0' },
      ];
      for (const headers of declaredJson) {
        const res = await sendRaw(s.url, rawRequest(method, path, { headers }));
        expect({ method, path, status: res.status }).toEqual({ method, path, status });
        if (method === 'DELETE') break; // once deleted, it is gone
      }
    }
  });

  it('answers an empty body declared as JSON on a route that needs one as a missing body', async () => {
    const empty = await sendRaw(
      s.url,
      rawRequest('POST', service.write, { headers: { 'content-type': 'application/json' } }),
    );
    expectClientError(empty, 400);
    // The usual answer to a body that lacks every field, not one about the JSON.
    const missing = await sendJson(`${s.url}${service.write}`, 'POST', {});
    const said = ({ body }: HttpResult) => {
      const { error, message } = body as { error: string; message: string };
      return { error, message };
    };
    expect(said(empty)).toEqual(said(missing));
  });

  // A byte sequence that is not UTF-8 was decoded to U+FFFD and stored so.
  it.each([
    ['a lone continuation byte', [0x80]],
    ['an invalid byte', [0xff]],
    ['a truncated sequence', [0xd0]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a UTF-16 surrogate encoded', [0xed, 0xa0, 0x80]],
  ])('refuses a body with %s in a name as not UTF-8, storing nothing', async (_name, bytes) => {
    const [before, after] = JSON.stringify(service.named.body()).split(MARKER);
    const body = Buffer.concat([
      Buffer.from(`${before}Ив`),
      Buffer.from(bytes),
      Buffer.from(`ан${after}`),
    ]);
    const state = await service.state(s);
    const res = await sendRaw(
      s.url,
      rawRequest('POST', service.named.path, {
        headers: { 'content-type': 'application/json', ...service.named.headers },
        body,
      }),
    );
    expectClientError(res, 400);
    expect((res.body as { message: string }).message).toMatch(/UTF-8/);
    expect(await service.state(s)).toBe(state);
  });
});
