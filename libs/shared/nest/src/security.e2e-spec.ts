import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet from 'helmet';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { TerminusModule, TypeOrmHealthIndicator } from '@nestjs/terminus';
import request from 'supertest';
import { Clock, FixedClock } from '@bank/shared/calendar';
import { HELMET_OPTIONS, configureHttpApp } from './configure';
import { CoreModule } from './core.module';
import { BaseEnvironment } from './environment';
import { CardIssueExceptionFilter } from './errors/card-issue-exception.filter';
import { RegistrationExceptionFilter } from './errors/registration-exception.filter';
import { HealthController } from './health/health.controller';
import { createHttpAdapter } from './http-adapter';

@Controller('t')
class ProbeController {
  @Get('ping')
  ping(): { ok: true } {
    return { ok: true };
  }
}

class TestEnvironment extends BaseEnvironment {
  override PORT = 0;
}

const clock = new FixedClock('2026-03-15T21:30:00.000Z');

interface Booted {
  url: string;
  close(): Promise<void>;
}

// Boots like libs/shared/testing does (that lib depends on this one, so it is not used here).
async function boot(
  shape: 'card' | 'registration',
  overrides: Record<string, string>,
): Promise<Booted> {
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

  const moduleRef = await Test.createTestingModule({ imports: [ProbeModule] })
    .overrideProvider(Clock)
    .useValue(clock)
    // No database here: the health check itself is not under test, only whether it is throttled.
    .overrideProvider(TypeOrmHealthIndicator)
    .useValue({ pingCheck: () => Promise.resolve({ database: { status: 'up' } }) })
    .compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter());
  configureHttpApp(app, {
    filter:
      shape === 'card'
        ? new CardIssueExceptionFilter(clock, 'Europe/Moscow')
        : new RegistrationExceptionFilter(clock, 'Europe/Moscow'),
    swagger: { title: 'probe', description: 'probe', version: '1' },
  });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

describe('security headers (helmet)', () => {
  let t: Booted;
  beforeAll(async () => (t = await boot('card', {})));
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
    const t = await boot('card', {});
    try {
      for (let i = 0; i < 20; i++) expect((await request(t.url).get('/t/ping')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it.each([
    ['card', { error: 'Too Many Requests', message: 'Too many requests; retry later' }],
    [
      'registration',
      { error: 'Слишком много запросов', message: 'Превышен лимит запросов, повторите позже' },
    ],
  ] as const)(
    'answers 429 in the %s error shape past RATE_LIMIT, never on the health check',
    async (shape, text) => {
      const t = await boot(shape, { RATE_LIMIT: '5', RATE_LIMIT_WINDOW_MS: '60000' });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 7; i++) statuses.push((await request(t.url).get('/t/ping')).status);
        expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
        const limited = await request(t.url).get('/t/ping');
        expect(limited.body).toEqual({
          timestamp: '2026-03-16T00:30:00.000',
          status: 429,
          ...text,
        });
        expect(limited.headers['retry-after']).toBeDefined();
        for (let i = 0; i < 10; i++)
          expect((await request(t.url).get('/api/health')).status).toBe(200);
      } finally {
        await t.close();
      }
    },
  );
});
