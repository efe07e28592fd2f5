import {
  createTestDatabase,
  RunningTestService,
  TestDatabase,
  TestServiceProcess,
} from '@bank/shared/testing';
import { sendJson } from './support/http';
import {
  aUser,
  BACKGROUND_OFF,
  SECRET,
  selfVirtual,
  spawnCardIssue,
  startCardIssue,
} from '@bank/card-issue/testing';
import {
  registration,
  spawnClientRegistration,
  startClientRegistration,
} from '@bank/client-registration/testing';
import { assertClientError, errorShapeProblem, leaksOf } from './support/shapes';

/** Values that appear nowhere else, so finding one in a log line can only be a leak. */
const PII = {
  series: '4599',
  number: '918273',
  number2: '918274',
  phone: '79997654321',
  email: 'leak.check@bank-test.example',
  wrongSecret: 'not-the-secret-7f3a',
};

function findLeaks(log: string, secrets: string[]): string[] {
  return secrets.filter((value) => log.includes(value));
}

describe('security: logs of a running card-issue process', () => {
  let db: TestDatabase;
  let child: TestServiceProcess | undefined;
  beforeAll(async () => {
    db = await createTestDatabase('robust_sec_logs_card');
  });
  afterAll(async () => {
    await child?.stop('SIGKILL');
    await db?.drop();
  });

  it('never hold the X-secret, passport numbers, phones or e-mails', async () => {
    child = await spawnCardIssue({
      DATABASE_URL: db.url,
      X_SECRET: SECRET,
      LOG_LEVEL: 'trace',
      SCHEDULER_ENABLED: 'false',
    });
    const url = child.url;
    const secret = { 'x-secret': SECRET };
    const person = aUser({
      contactInfo: { phone: PII.phone, email: PII.email },
      passportData: {
        birthDate: '15-03-1990',
        birthPlace: 'Moscow',
        issueDate: '20-03-2010',
        series: PII.series,
        number: PII.number,
      },
    });
    const created = await sendJson(`${url}/user-api/api/v1/users`, 'POST', person, secret);
    expect(created.status).toBe(201);
    const owner = (created.body as { id: string }).id;
    // A duplicate passport (409 naming it), a wrong secret, a validation error echoing PII.
    expect((await sendJson(`${url}/user-api/api/v1/users`, 'POST', person, secret)).status).toBe(
      409,
    );
    expect(
      (
        await sendJson(`${url}/user-api/api/v1/users`, 'POST', person, {
          'x-secret': PII.wrongSecret,
        })
      ).status,
    ).toBe(403);
    const badEmail = aUser({ contactInfo: { phone: PII.phone, email: `${PII.email}@@` } });
    expect((await sendJson(`${url}/user-api/api/v1/users`, 'POST', badEmail, secret)).status).toBe(
      400,
    );
    await sendJson(`${url}/user-api/api/v1/users/${owner}`, 'GET', undefined, secret);
    // Card issue: a third-party holder with PII (created through the gateway with the secret),
    // one whose passport is taken (FAILED naming it), and an unexpected error with PII in the body.
    const holder = aUser({
      contactInfo: { phone: PII.phone, email: PII.email },
      passportData: {
        birthDate: '15-03-1990',
        birthPlace: 'Moscow',
        issueDate: '20-03-2010',
        series: PII.series,
        number: PII.number2,
      },
    });
    const thirdParty = {
      request: {
        cardOwner: owner,
        formFactor: 'VIRTUAL',
        cardHolder: { nameless: false, user: holder },
      },
    };
    expect((await sendJson(`${url}/api/v1/card-issue`, 'POST', thirdParty)).status).toBe(201);
    // Another person with the same passport: the holder key differs, the passport is taken.
    const samePassport = {
      request: {
        ...thirdParty.request,
        cardHolder: { nameless: false, user: { ...holder, firstName: 'Anna' } },
      },
    };
    expect((await sendJson(`${url}/api/v1/card-issue`, 'POST', samePassport)).body).toMatchObject({
      status: 'FAILED',
    });
    // A refused body that carries personal data must not bring it into the logs either.
    const refused = {
      request: { ...thirdParty.request, extra: { constructor: 'x', phone: PII.phone } },
    };
    await sendJson(`${url}/api/v1/card-issue`, 'POST', refused);
    await sendJson(`${url}/api/v1/card-issue`, 'POST', selfVirtual(owner));
    await child.stop('SIGTERM');

    const log = child.output();
    expect(log.length).toBeGreaterThan(1_000); // trace level did log the traffic
    expect(
      findLeaks(log, [SECRET, PII.wrongSecret, PII.number, PII.number2, PII.phone, PII.email]),
    ).toEqual([]);
  }, 120_000);
});

describe('security: logs of a running client-registration process', () => {
  let db: TestDatabase;
  let child: TestServiceProcess | undefined;
  beforeAll(async () => {
    db = await createTestDatabase('robust_sec_logs_reg');
  });
  afterAll(async () => {
    await child?.stop('SIGKILL');
    await db?.drop();
  });

  it('never hold passport numbers, phones or e-mails', async () => {
    child = await spawnClientRegistration({ DATABASE_URL: db.url, LOG_LEVEL: 'trace' });
    const url = child.url;
    const body = registration({
      contactInfo: { phone: PII.phone, email: PII.email },
      passportData: {
        birthDate: '15-03-1990',
        birthPlace: 'г. Москва',
        issueDate: '20-03-2010',
        series: PII.series,
        number: PII.number,
      },
    });
    const created = await sendJson(`${url}/api/clients`, 'POST', body);
    expect(created.status).toBe(201);
    expect((await sendJson(`${url}/api/clients`, 'POST', body)).status).toBe(409);
    const invalid = registration({
      contactInfo: { phone: `${PII.phone}9`, email: `${PII.email}@@` },
    });
    expect((await sendJson(`${url}/api/clients`, 'POST', invalid)).status).toBe(400);
    const id = (created.body as { id: string }).id;
    await sendJson(`${url}/api/clients/${id}`, 'GET', undefined);
    const passport = {
      birthDate: '15-03-1990',
      birthPlace: 'г. Москва',
      issueDate: '20-03-2010',
      series: PII.series,
      number: PII.number2,
    };
    expect(
      (await sendJson(`${url}/api/clients/${id}/passport`, 'PUT', { passportData: passport }))
        .status,
    ).toBe(200);
    await child.stop('SIGTERM');

    const log = child.output();
    expect(log.length).toBeGreaterThan(1_000);
    expect(findLeaks(log, [PII.number, PII.number2, PII.phone, PII.email])).toEqual([]);
  }, 120_000);
});

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'strict-transport-security': expect.stringMatching(/max-age=\d+/),
  'content-security-policy': expect.stringContaining("default-src 'self'"),
  'referrer-policy': 'no-referrer',
};

describe.each([
  [
    'card-issue',
    () =>
      startCardIssue({
        label: 'robust_sec_card',
        env: { ...BACKGROUND_OFF, RATE_LIMIT: '5', TRUST_PROXY: 'loopback' },
      }),
    'card-issue',
    '/api/v1/card-issue/RCARDB23112026000001',
  ],
  [
    'client-registration',
    () =>
      startClientRegistration({
        label: 'robust_sec_reg',
        env: { RATE_LIMIT: '5', TRUST_PROXY: 'loopback' },
      }),
    'registration',
    '/api/clients/3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21',
  ],
] as const)('security: %s over HTTP (RATE_LIMIT=5)', (_name, start, shape, missing) => {
  let s: RunningTestService;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('sends security headers on success, errors and the docs; Swagger UI still loads', async () => {
    const responses = [
      await sendJson(`${s.url}/api/health`, 'GET', undefined),
      await sendJson(`${s.url}${missing}`, 'GET', undefined),
      await sendJson(`${s.url}/nowhere`, 'GET', undefined),
    ];
    for (const res of responses) {
      expect(res.headers).toMatchObject(SECURITY_HEADERS);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
    const docs = await fetch(`${s.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
    expect(docs.headers.get('content-security-policy')).toContain(
      "script-src 'self' 'unsafe-inline'",
    );
  });

  it('answers 429 in the error shape past RATE_LIMIT, per client address, never on the health check', async () => {
    // The window is shared with the test above (3 requests + docs): count from here on.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await sendJson(`${s.url}${missing}`, 'GET', undefined)).status);
    expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(3);
    expect(statuses[statuses.length - 1]).toBe(429);
    const limited = await sendJson(`${s.url}${missing}`, 'GET', undefined);
    assertClientError(limited, shape);
    expect(limited.status).toBe(429);
    // Another client address behind the trusted proxy (the test client on loopback) has its
    // own budget; the client's own entries left of it do not.
    const other = await sendJson(`${s.url}${missing}`, 'GET', undefined, {
      'x-forwarded-for': '10.1.2.3',
    });
    expect(other.status).not.toBe(429);
    for (let i = 0; i < 6; i++)
      await sendJson(`${s.url}${missing}`, 'GET', undefined, { 'x-forwarded-for': '10.1.2.4' });
    const spoofed = await sendJson(`${s.url}${missing}`, 'GET', undefined, {
      'x-forwarded-for': '10.9.9.9, 10.1.2.4',
    });
    expect(spoofed.status).toBe(429);
    for (let i = 0; i < 10; i++)
      expect((await sendJson(`${s.url}/api/health`, 'GET', undefined)).status).toBe(200);
  });
});

describe('security: an unexpected error reveals nothing', () => {
  let s: RunningTestService;
  beforeAll(async () => {
    s = await startCardIssue({ label: 'robust_sec_500', env: { ...BACKGROUND_OFF } });
  });
  afterAll(async () => {
    await s?.close();
  });

  // (A 500 from an unexpected error is checked for the same in apps/card-issue/src/errors/card-issue-exception.filter.e2e-spec.ts.)
  it('an answer to a body that once crashed class-transformer carries no stack, SQL or driver text', async () => {
    const res = await sendJson(`${s.url}/api/v1/card-issue`, 'POST', {
      request: { extra: { constructor: 'x' } },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(errorShapeProblem(res, 'card-issue')).toBeNull();
    expect(leaksOf(res.text)).toEqual([]);
    expect(res.text).not.toMatch(/TypeError|MetadataStorage|class-transformer/);
  });
});
