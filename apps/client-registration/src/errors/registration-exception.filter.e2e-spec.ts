import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { IsInt, IsString, MaxLength, ValidateNested, IsObject } from 'class-validator';
import { Type } from 'class-transformer';
import { QueryFailedError } from 'typeorm';
import request from 'supertest';
import { DomainError } from '@bank/shared/errors';
import { FixedClock } from '@bank/shared/calendar';
import { BaseEnvironment } from '@bank/shared/config';
import { configureHttpApp, CoreModule } from '@bank/shared/nest';
import { startTestApp, TestApp } from '@bank/shared/testing';
import { RegistrationExceptionFilter } from './registration-exception.filter';

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

/** A service of the probe controller alone, with the whole HTTP setup and the registration filter. */
function boot(): Promise<TestApp> {
  return startTestApp({
    module: ProbeModule,
    clock,
    configure: (app) =>
      configureHttpApp(app, {
        filter: new RegistrationExceptionFilter(clock, 'Europe/Moscow'),
        swagger: {
          documents: [{ prefix: '', title: 'probe', description: 'probe', version: '1', tags: [] }],
        },
      }),
  });
}

describe('registration error shape', () => {
  let t: TestApp;
  beforeAll(async () => (t = await boot()));
  afterAll(() => t.close());

  it('lists violations as "path: message" details with a Russian title', async () => {
    const res = await request(t.url)
      .post('/t/validate')
      .send({ count: 1, inner: { code: 'ABCD' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      timestamp: '2026-03-16T00:30:00.000',
      status: 400,
      error: 'Ошибка валидации',
      message: 'Запрос содержит некорректные данные',
      details: [expect.stringMatching(/^inner\.code: /)],
    });
  });

  it.each([
    [
      'malformed JSON',
      () => request(t.url).post('/t/validate').set('content-type', 'application/json').send('{'),
      400,
      'Некорректный запрос',
    ],
    ['unknown route', () => request(t.url).get('/nowhere'), 404, 'Ресурс не найден'],
    [
      'oversized body',
      () =>
        request(t.url)
          .post('/t/validate')
          .set('content-type', 'application/json')
          .send(JSON.stringify({ pad: 'x'.repeat(1024 * 1024) })),
      413,
      'Слишком большой запрос',
    ],
    ['unique violation', () => request(t.url).get('/t/unique'), 409, 'Конфликт данных'],
    ['unexpected error', () => request(t.url).get('/t/boom'), 500, 'Внутренняя ошибка сервера'],
    ['database unavailable', () => request(t.url).get('/t/db-down'), 503, 'Сервис недоступен'],
  ])('%s gives a Russian body', async (_name, send, status, title) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ status, error: title });
    expect(res.body.message).toMatch(/[а-я]/);
    expect(JSON.stringify(res.body)).not.toMatch(/SELECT|INSERT|at .*\.ts/);
  });

  it('keeps a domain error title and message', async () => {
    const res = await request(t.url).get('/t/domain');
    expect(res.body).toMatchObject({
      status: 404,
      error: 'Не найдено',
      message: 'Thing 42 is gone',
    });
  });
});
