import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import { IsInt, IsString, MaxLength, ValidateNested, IsObject } from 'class-validator';
import { Type } from 'class-transformer';
import { QueryFailedError } from 'typeorm';
import request from 'supertest';
import { DomainError } from '@bank/shared/errors';
import { FixedClock } from '@bank/shared/calendar';
import { BaseEnvironment } from '@bank/shared/config';
import { configureHttpApp, CoreModule } from '@bank/shared/nest';
import { startTestApp, TestApp } from '@bank/shared/testing';
import { CardIssueExceptionFilter } from './card-issue-exception.filter';

class Inner {
  @IsString()
  @MaxLength(3)
  code!: string;
}

class Payload {
  @IsInt()
  count!: number;

  @IsObject()
  @ValidateNested()
  @Type(() => Inner)
  inner!: Inner;
}

class GoneError extends DomainError {
  readonly code = 'THING_GONE';
  readonly httpStatus = 404;
  override readonly title = 'Не найдено';
}

@Controller('t')
class ProbeController {
  @Post('validate')
  validate(@Body() body: Payload): Payload {
    return body;
  }

  @Get('echo/:name')
  echo(@Param('name') name: string): { name: string } {
    return { name };
  }

  @Get('domain')
  domain(): never {
    throw new GoneError('Thing 42 is gone');
  }

  @Get('unique')
  unique(): never {
    const driverError = Object.assign(
      new Error('duplicate key value violates unique constraint "uq_x"'),
      { code: '23505' },
    );
    throw new QueryFailedError('INSERT INTO secret_table VALUES ($1)', ['x'], driverError);
  }

  @Get('db-down')
  databaseDown(): never {
    const driverError = Object.assign(
      new Error('terminating connection due to administrator command'),
      { code: '57P01' },
    );
    throw new QueryFailedError('SELECT * FROM secret_table', [], driverError);
  }

  @Get('boom')
  boom(): never {
    throw new Error('SELECT password FROM users -- internal detail');
  }
}

class TestEnvironment extends BaseEnvironment {
  override PORT = 0;
}

@Module({
  imports: [
    CoreModule.forRoot({
      serviceName: 'probe',
      environment: TestEnvironment,
      overrides: { LOG_LEVEL: 'silent' },
    }),
  ],
  controllers: [ProbeController],
})
class ProbeModule {}

const clock = new FixedClock('2026-03-15T21:30:00.000Z'); // 00:30 on 16 March in Moscow

/** A service of the probe controller alone, with the whole HTTP setup and the card-issue filter. */
function boot(): Promise<TestApp> {
  return startTestApp({
    module: ProbeModule,
    clock,
    configure: (app) =>
      configureHttpApp(app, {
        filter: new CardIssueExceptionFilter(clock, 'Europe/Moscow'),
        swagger: {
          documents: [{ prefix: '', title: 'probe', description: 'probe', version: '1', tags: [] }],
        },
      }),
  });
}

describe('card-issue error shape', () => {
  let t: TestApp;
  beforeAll(async () => (t = await boot()));
  afterAll(() => t.close());

  it('lists every violated field by full path, with a local timestamp', async () => {
    const res = await request(t.url)
      .post('/t/validate')
      .send({ count: 'x', inner: { code: 'ABCD' }, extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      timestamp: '2026-03-16T00:30:00.000',
      status: 400,
      error: 'Bad Request',
      message: 'Validation failed',
      errors: {
        count: expect.any(String),
        'inner.code': expect.stringContaining('3'),
        extra: 'property extra should not exist',
      },
    });
  });

  it('answers malformed JSON with 400', async () => {
    const res = await request(t.url)
      .post('/t/validate')
      .set('content-type', 'application/json')
      .send('{"count": 1,');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 400,
      error: 'Bad Request',
      message: 'Request body is not valid JSON',
    });
    expect(res.body.errors).toBeUndefined();
  });

  it('answers an unknown route with 404', async () => {
    const res = await request(t.url).get('/nowhere');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      status: 404,
      error: 'Not Found',
      message: 'No route for GET /nowhere',
    });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const res = await request(t.url)
      .post('/t/validate')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ count: 1, pad: 'x'.repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: 413, error: 'Payload Too Large' });
  });

  it('answers a body of exactly 1 MiB normally (validation, not 413)', async () => {
    const prefix = '{"count":1,"inner":{"code":"A"},"pad":"';
    const body = prefix + 'x'.repeat(1024 * 1024 - prefix.length - 2) + '"}';
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const res = await request(t.url)
      .post('/t/validate')
      .set('content-type', 'application/json')
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ pad: 'property pad should not exist' });
  });

  it('answers a non-JSON content type with 415', async () => {
    const res = await request(t.url)
      .post('/t/validate')
      .set('content-type', 'text/plain')
      .send('hello');
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ status: 415, error: 'Unsupported Media Type' });
  });

  it('maps a domain error to its status with its message', async () => {
    const res = await request(t.url).get('/t/domain');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      status: 404,
      error: 'Not Found',
      message: 'Thing 42 is gone',
    });
  });

  it('maps a unique violation to 409 without SQL text', async () => {
    const res = await request(t.url).get('/t/unique');
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).not.toMatch(/INSERT|secret_table|uq_x/);
  });

  it('answers the database unavailable with 503 and Retry-After, naming the database', async () => {
    const res = await request(t.url).get('/t/db-down');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({
      timestamp: '2026-03-16T00:30:00.000',
      status: 503,
      error: 'Service Unavailable',
      message: 'The database is unavailable; retry later',
    });
  });

  it('answers an unexpected error with a bare 500: no stack, no SQL', async () => {
    const res = await request(t.url).get('/t/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      timestamp: '2026-03-16T00:30:00.000',
      status: 500,
      error: 'Internal Server Error',
      message: 'Unexpected error',
    });
  });
});

describe("Fastify's own router errors", () => {
  let t: TestApp;
  beforeAll(async () => (t = await boot()));
  afterAll(() => t.close());

  it('a path parameter over 200 characters answers in the error shape', async () => {
    const res = await request(t.url).get(`/t/echo/${'a'.repeat(300)}`);
    expect(res.status).toBe(414);
    expect(res.body).toMatchObject({
      timestamp: '2026-03-16T00:30:00.000',
      status: 414,
      error: 'URI Too Long',
    });
  });

  it('a malformed URL answers 400 in the error shape', async () => {
    const res = await request(t.url).get('/t/echo/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, error: 'Bad Request' });
  });
});
