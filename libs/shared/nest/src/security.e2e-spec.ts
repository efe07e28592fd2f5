import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet from 'helmet';
import { Catch, Controller, Get, Module } from '@nestjs/common';
import { TerminusModule, TypeOrmHealthIndicator } from '@nestjs/terminus';
import request from 'supertest';
import { FixedClock } from '@bank/shared/calendar';
import { configureHttpApp } from './configure';
import { CoreModule } from './core.module';
import { BaseEnvironment } from '@bank/shared/config';
import { ErrorShapeFilter, Problem } from '@bank/shared/error-shape';
import { HealthController } from './health/health.controller';
import { HELMET_OPTIONS } from '@bank/shared/http';
import { startTestApp, TestApp } from '@bank/shared/testing';

@Controller('t')
class ProbeController {
  @Get('ping')
  ping(): { ok: true } {
    return { ok: true };
  }

  @Get('pong')
  pong(): { ok: true } {
    return { ok: true };
  }
}

/** This test's own error body: the problem the filter reduced the failure to. */
class ProbeErrorBody {
  timestamp!: string;
  status!: number;
  code!: string;
  message!: string;
}

/** A service's filter as the apps write theirs (apps/<app>/src/errors), rendering ProbeErrorBody. */
@Catch()
class ProbeExceptionFilter extends ErrorShapeFilter {
  readonly bodyType = ProbeErrorBody;
  readonly openApiTexts = {
    unavailable: 'unavailable',
    alsoUnavailable: 'also unavailable',
    retryAfter: 'retry after',
    requestTimeout: 'request timeout',
    tooManyRequests: 'too many requests',
    payloadTooLarge: 'payload too large',
    unsupportedMediaType: 'unsupported media type',
    alsoMalformedJson: 'also malformed JSON',
    internalError: 'internal error',
    requestId: 'request id',
    methodNotAllowed: 'method not allowed',
    allow: 'allow',
    rateLimitPolicy: 'rate limit policy',
    rateLimit: 'rate limit',
    bearerScheme: 'bearer',
    unauthorized: 'unauthorized',
    wwwAuthenticate: 'challenge',
    forbidden: 'forbidden',
    alsoForbidden: 'also forbidden',
  };

  protected render(problem: Problem, timestamp: string): ProbeErrorBody {
    return { timestamp, status: problem.status, code: problem.code, message: problem.message };
  }
}

class TestEnvironment extends BaseEnvironment {
  override PORT = 0;
}

const clock = new FixedClock('2026-03-15T21:30:00.000Z');

/** A service of the probe and health controllers, with the whole HTTP setup. */
function boot(overrides: Record<string, string>): Promise<TestApp> {
  @Module({
    imports: [
      CoreModule.forRoot({
        serviceName: 'probe',
        environment: TestEnvironment,
        overrides: { LOG_LEVEL: 'silent', ...overrides },
      }),
      TerminusModule,
    ],
    controllers: [ProbeController, HealthController],
  })
  class ProbeModule {}

  return startTestApp({
    module: ProbeModule,
    clock,
    // No database here: the health check itself is not under test, only whether it is throttled.
    override: (builder) =>
      builder
        .overrideProvider(TypeOrmHealthIndicator)
        .useValue({ pingCheck: () => Promise.resolve({ database: { status: 'up' } }) }),
    configure: (app) =>
      configureHttpApp(app, {
        filter: new ProbeExceptionFilter(clock, 'Europe/Moscow'),
        swagger: {
          documents: [{ prefix: '', title: 'probe', description: 'probe', version: '1', tags: [] }],
        },
      }),
  });
}

describe('security headers (helmet)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await boot({})));
  afterAll(() => t.close());

  it('are on API responses and on errors', async () => {
    for (const path of ['/t/ping', '/nowhere']) {
      const res = await request(t.url).get(path);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('are every header helmet itself sets on a response, with the same values', async () => {
    const res = await request(t.url).get('/t/ping');
    // helmet's own middleware on a real node:http response, for comparison.
    const reference = new ServerResponse(new IncomingMessage(new Socket()));
    helmet(HELMET_OPTIONS)(reference.req, reference, () => undefined);
    const expected = reference.getHeaders();
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(12);
    for (const [name, value] of Object.entries(expected))
      expect(`${name}: ${String(res.headers[name])}`).toBe(`${name}: ${String(value)}`);
  });

  it('let Swagger UI load: the page, its script and its styles', async () => {
    const page = await request(t.url).get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self' 'unsafe-inline'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    // Every script and stylesheet the page references is served from the same origin.
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^https?:/);
      // Resolved as a browser does, against the page's own URL.
      const res = await request(t.url).get(new URL(asset, `${t.url}/docs`).pathname);
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
    }
    expect((await request(t.url).get('/docs-json')).status).toBe(200);
  });
});

describe('rate limiting (RATE_LIMIT)', () => {
  it('is off by default', async () => {
    const t = await boot({});
    try {
      for (let i = 0; i < 20; i++) expect((await request(t.url).get('/t/ping')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  // Each service's wording of the 429: apps/<app>/src/errors/*-exception.filter.spec.ts.
  it("answers 429 through the service's filter past RATE_LIMIT, never on the health check", async () => {
    const t = await boot({ RATE_LIMIT: '5', RATE_LIMIT_WINDOW_MS: '60000' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await request(t.url).get('/t/ping')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      const limited = await request(t.url).get('/t/ping');
      expect(limited.body).toEqual({
        timestamp: '2026-03-16T00:30:00.000',
        status: 429,
        code: 'TOO_MANY_REQUESTS',
        message: 'Too many requests; retry later',
      });
      expect(limited.headers['retry-after']).toBeDefined();
      for (let i = 0; i < 10; i++)
        expect((await request(t.url).get('/api/health')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('counts the requests of a caller to every route against one budget', async () => {
    const t = await boot({ RATE_LIMIT: '3', TRUST_PROXY: 'loopback' });
    try {
      const get = (path: string, forwardedFor = '203.0.113.1') =>
        request(t.url).get(path).set('x-forwarded-for', forwardedFor);
      for (let i = 0; i < 3; i++) expect((await get('/t/ping')).status).toBe(200);
      expect((await get('/t/pong')).status).toBe(429);
      // Another client address behind the trusted proxy has its own budget.
      expect((await get('/t/pong', '203.0.113.2')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('tells the caller its quota: RateLimit-Policy and RateLimit, Retry-After on the 429', async () => {
    const t = await boot({ RATE_LIMIT: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++)
        answers.push(await request(t.url).get(i % 2 ? '/t/pong' : '/t/ping'));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 429]);
      for (const res of answers) expect(res.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
      const remaining = answers.map((res) => /;r=(\d+);/.exec(res.headers.ratelimit)?.[1]);
      expect(remaining).toEqual(['2', '1', '0', '0']);
      for (const res of answers.slice(0, 3)) {
        expect(res.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
        const reset = Number(/;t=(\d+)$/.exec(res.headers.ratelimit)?.[1]);
        expect(reset).toBeGreaterThan(0);
        expect(reset).toBeLessThanOrEqual(60);
        expect(res.headers['retry-after']).toBeUndefined();
      }
      const limited = answers[3];
      expect(limited.headers.ratelimit).toBe(`"default";r=0;t=${limited.headers['retry-after']}`);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      for (const res of answers)
        expect(Object.keys(res.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual(
          [],
        );
      // The health check is neither counted nor labelled.
      const health = await request(t.url).get('/api/health');
      expect([health.status, health.headers.ratelimit]).toEqual([200, undefined]);
    } finally {
      await t.close();
    }
  });

  it('leaves out the window when RATE_LIMIT_WINDOW_MS is no whole number of seconds', async () => {
    const t = await boot({ RATE_LIMIT: '3', RATE_LIMIT_WINDOW_MS: '1500' });
    try {
      expect((await request(t.url).get('/t/ping')).headers['ratelimit-policy']).toBe(
        '"default";q=3',
      );
    } finally {
      await t.close();
    }
  });

  /** Statuses of `n` GETs, each with the X-Forwarded-For `forwardedFor(i)` (none when undefined). */
  async function statuses(
    url: string,
    n: number,
    forwardedFor: (i: number) => string | undefined,
  ): Promise<number[]> {
    const result: number[] = [];
    for (let i = 0; i < n; i++) {
      const forwarded = forwardedFor(i);
      const req = request(url).get('/t/ping');
      result.push((await (forwarded ? req.set('x-forwarded-for', forwarded) : req)).status);
    }
    return result;
  }

  it.each([
    ['unset', {}],
    ['off', { TRUST_PROXY: 'off' }],
    ['a network the peer is not in', { TRUST_PROXY: '10.0.0.0/8, 192.168.0.0/16' }],
  ])(
    'with TRUST_PROXY %s, a new X-Forwarded-For per request does not dodge the limit',
    async (_name, trust) => {
      const t = await boot({ RATE_LIMIT: '3', ...trust });
      try {
        expect(await statuses(t.url, 5, (i) => `203.0.113.${i + 1}`)).toEqual([
          200, 200, 200, 429, 429,
        ]);
      } finally {
        await t.close();
      }
    },
  );

  it.each([
    ['a hop count', '1'],
    ['the proxy network', '127.0.0.0/8'],
    ['a keyword and addresses', 'loopback, 10.0.0.1'],
  ])(
    'with TRUST_PROXY as %s, the limit is keyed on the address the trusted proxy saw',
    async (_name, TRUST_PROXY) => {
      const t = await boot({ RATE_LIMIT: '3', TRUST_PROXY });
      try {
        // The client's own entries (left of the proxy's) do not change its address.
        expect(await statuses(t.url, 4, (i) => `198.51.100.${i}, 203.0.113.7`)).toEqual([
          200, 200, 200, 429,
        ]);
        // Another client behind the proxy has its own budget.
        expect(await statuses(t.url, 1, () => '203.0.113.8')).toEqual([200]);
        // A request without the header is the proxy itself (the socket's peer).
        expect(await statuses(t.url, 1, () => undefined)).toEqual([200]);
      } finally {
        await t.close();
      }
    },
  );
});

describe('TRUST_PROXY configuration', () => {
  it.each(['true', 'yes', '10.0.0.300', '10.0.0.0/33', 'fe80::/129', '1.2.3.4/8/9', '33'])(
    'refuses %j at start-up, naming the variable',
    (TRUST_PROXY) => {
      expect(() =>
        CoreModule.forRoot({
          serviceName: 'probe',
          environment: TestEnvironment,
          overrides: { TRUST_PROXY },
        }),
      ).toThrow(/TRUST_PROXY=.*: TRUST_PROXY/);
    },
  );
});

describe('DOCS_ENABLED', () => {
  it('false: neither Swagger UI nor the OpenAPI document is served (404), the API still is', async () => {
    const t = await boot({ DOCS_ENABLED: 'false' });
    try {
      for (const path of ['/docs', '/docs-json', '/docs/swagger-ui.css'])
        expect({ path, status: (await request(t.url).get(path)).status }).toEqual({
          path,
          status: 404,
        });
      expect((await request(t.url).get('/t/ping')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
