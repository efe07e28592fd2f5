import { HttpException } from '@nestjs/common';
import { FixedClock } from '@bank/shared/calendar';
import {
  RegistrationExceptionFilter,
  translateFieldMessage,
} from './registration-exception.filter';

describe('translateFieldMessage', () => {
  it('translates the unknown-field message of class-validator', () => {
    expect(translateFieldMessage('property fax should not exist')).toBe('поле не предусмотрено');
  });

  it('translates the not-an-object message of class-validator', () => {
    expect(translateFieldMessage('an unknown value was passed to the validate function')).toBe(
      'тело запроса должно быть JSON-объектом',
    );
  });

  it('translates each part of a joined message and keeps Russian ones', () => {
    expect(translateFieldMessage('обязательное поле; property x should not exist')).toBe(
      'обязательное поле; поле не предусмотрено',
    );
  });
});

describe('RegistrationExceptionFilter', () => {
  const timestamp = '2026-03-16T00:30:00.000';
  const filter = new RegistrationExceptionFilter(
    new FixedClock('2026-03-15T21:30:00.000Z'),
    'Europe/Moscow',
  );

  // The throttler's 429 reaching the filter is checked in libs/shared/nest security.e2e-spec.ts.
  it("answers the rate limit's 429 in Russian", () => {
    expect(filter.example(new HttpException('Too Many Requests', 429), timestamp)).toEqual({
      timestamp,
      status: 429,
      error: 'Слишком много запросов',
      message: 'Превышен лимит запросов, повторите позже',
    });
  });

  it('answers a write whose connection was lost in flight in Russian, with Retry-After', () => {
    const lost = new Error('Connection terminated unexpectedly');
    const { problem, body, headers } = filter.answer(lost, 'POST');
    expect({
      status: problem.status,
      code: problem.code,
      retryAfter: headers['retry-after'],
    }).toEqual({ status: 503, code: 'DATABASE_OUTCOME_UNKNOWN', retryAfter: '5' });
    expect(body).toMatchObject({
      error: 'Сервис недоступен',
      message: expect.stringMatching(/^Соединение с базой данных прервалось во время записи/),
    });
    expect((filter.answer(lost, 'GET').body as { message: string }).message).toBe(
      'База данных временно недоступна, повторите запрос позже',
    );
  });
});
