import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiInternalServerErrorResponse,
  ApiNotFoundResponse,
  ApiPayloadTooLargeResponse,
  ApiResponseExamples,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { RegistrationErrorBody } from '../errors/registration-error-body.dto';

/** OpenAPI error responses of the clients endpoints, with one example per failure. */

const TIMESTAMP = '2026-11-23T15:04:05.123';

function example(
  summary: string,
  status: number,
  error: string,
  message: string,
  details?: string[],
): ApiResponseExamples {
  return {
    summary,
    value: { timestamp: TIMESTAMP, status, error, message, ...(details ? { details } : {}) },
  };
}

const EXAMPLES = {
  validation: example(
    'Нарушены правила полей (все нарушения сразу)',
    400,
    'Ошибка валидации',
    'Запрос содержит некорректные данные',
    [
      'lastName: длина не должна превышать 35 символов',
      'contactInfo.phone: должен состоять из 11 цифр и начинаться с 7',
      'passportData.issueDate: не может быть раньше даты рождения',
      'bankruptIndividual: должно быть логическим значением true или false',
      'unknownField: поле не предусмотрено',
    ],
  ),
  passportValidation: example(
    'Нарушены правила полей паспорта',
    400,
    'Ошибка валидации',
    'Запрос содержит некорректные данные',
    [
      'passportData.birthDate: должна быть реальной датой в формате dd-MM-yyyy',
      'passportData.series: должна состоять ровно из 4 цифр',
    ],
  ),
  malformedId: example(
    'id не является UUID',
    400,
    'Ошибка валидации',
    'Запрос содержит некорректные данные',
    ['id: должен быть UUID'],
  ),
  malformedJson: example(
    'Тело запроса — некорректный JSON',
    400,
    'Некорректный запрос',
    'Тело запроса не является корректным JSON',
  ),
  passportOutdated: example(
    'Паспорт выдан до 20 или 45 лет и срок замены истёк',
    400,
    'Ошибка проверки паспорта',
    'Требуется обновлённый паспорт: паспорт выдан до достижения клиентом 20 лет, срок его замены истёк 15-04-2026',
  ),
  managerNotFound: example(
    'PIN менеджера корректен, но менеджера с таким PIN нет',
    400,
    'Менеджер не найден',
    'Менеджер с PIN X_9999 не найден',
  ),
  underage: example(
    'Клиенту меньше 18 лет',
    403,
    'Отказ в регистрации',
    'Клиенту 17 лет, минимальный возраст клиента — 18 лет (18 лет исполнится 15-03-2027)',
  ),
  underageUpdate: example(
    'По новым паспортным данным клиенту меньше 18 лет',
    403,
    'Отказ в обновлении паспортных данных',
    'Клиенту 17 лет, минимальный возраст клиента — 18 лет (18 лет исполнится 15-03-2027)',
  ),
  notFound: example(
    'Клиента с таким id нет',
    404,
    'Клиент не найден',
    'Клиент с id 3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21 не найден',
  ),
  passportTaken: example(
    'Паспорт уже принадлежит другому клиенту',
    409,
    'Клиент уже зарегистрирован',
    'Клиент с паспортом серии 4510 номер 123456 уже зарегистрирован',
  ),
  idempotencyKeyReused: example(
    'Idempotency-Key уже использован с другим телом запроса',
    409,
    'Конфликт ключа идемпотентности',
    'Этот Idempotency-Key уже использован с другим телом запроса',
  ),
  idempotencyKeyInProgress: example(
    'Запрос с этим Idempotency-Key ещё выполняется (с заголовком Retry-After)',
    409,
    'Запрос ещё обрабатывается',
    'Запрос с этим Idempotency-Key ещё обрабатывается, повторите его позже',
  ),
  tooLarge: example(
    'Тело запроса больше 1 МиБ',
    413,
    'Слишком большой запрос',
    'Размер тела запроса превышает 1 МиБ',
  ),
  mediaType: example(
    'Тело запроса не application/json',
    415,
    'Неподдерживаемый тип содержимого',
    'Тело запроса должно быть в формате application/json',
  ),
  internal: example(
    'Непредвиденная ошибка (без деталей реализации)',
    500,
    'Внутренняя ошибка сервера',
    'Произошла непредвиденная ошибка, повторите запрос позже',
  ),
};

const type = RegistrationErrorBody;

function bodyErrors(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiPayloadTooLargeResponse({
      type,
      description: 'Тело запроса больше 1 МиБ',
      examples: { tooLarge: EXAMPLES.tooLarge },
    }),
    ApiUnsupportedMediaTypeResponse({
      type,
      description: 'Тело запроса не в формате application/json',
      examples: { mediaType: EXAMPLES.mediaType },
    }),
  );
}

function internalError(): MethodDecorator & ClassDecorator {
  return ApiInternalServerErrorResponse({
    type,
    description: 'Непредвиденная ошибка',
    examples: { internal: EXAMPLES.internal },
  });
}

export function ApiRegisterErrors(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBadRequestResponse({
      type,
      description:
        'Ошибка валидации (details перечисляет все нарушения), паспорт требует замены (правила 2.4), ' +
        'неизвестный PIN менеджера или некорректный JSON',
      examples: {
        validation: EXAMPLES.validation,
        passportOutdated: EXAMPLES.passportOutdated,
        managerNotFound: EXAMPLES.managerNotFound,
        malformedJson: EXAMPLES.malformedJson,
      },
    }),
    ApiForbiddenResponse({
      type,
      description: 'Отказ в регистрации: клиенту меньше 18 лет',
      examples: { underage: EXAMPLES.underage },
    }),
    ApiConflictResponse({
      type,
      description:
        'Клиент с такими серией и номером паспорта уже зарегистрирован (id клиента не раскрывается), ' +
        'Idempotency-Key использован с другим телом или запрос с ним ещё выполняется (тогда с Retry-After, в секундах)',
      headers: {
        'Retry-After': {
          description:
            'Через сколько секунд повторить запрос (только пока запрос с ключом выполняется)',
          schema: { type: 'integer' },
        },
      },
      examples: {
        passportTaken: EXAMPLES.passportTaken,
        idempotencyKeyReused: EXAMPLES.idempotencyKeyReused,
        idempotencyKeyInProgress: EXAMPLES.idempotencyKeyInProgress,
      },
    }),
    bodyErrors(),
    internalError(),
  );
}

export function ApiGetClientErrors(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBadRequestResponse({
      type,
      description: 'id не является UUID',
      examples: { malformedId: EXAMPLES.malformedId },
    }),
    ApiNotFoundResponse({
      type,
      description: 'Клиента с таким id нет; сообщение содержит запрошенный id',
      examples: { notFound: EXAMPLES.notFound },
    }),
    internalError(),
  );
}

export function ApiUpdatePassportErrors(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBadRequestResponse({
      type,
      description:
        'Ошибка валидации (в том числе id не UUID), паспорт требует замены (правила 2.4) или некорректный JSON',
      examples: {
        validation: EXAMPLES.passportValidation,
        malformedId: EXAMPLES.malformedId,
        passportOutdated: EXAMPLES.passportOutdated,
        malformedJson: EXAMPLES.malformedJson,
      },
    }),
    ApiForbiddenResponse({
      type,
      description: 'По новым паспортным данным клиенту меньше 18 лет',
      examples: { underage: EXAMPLES.underageUpdate },
    }),
    ApiNotFoundResponse({
      type,
      description: 'Клиента с таким id нет; сообщение содержит запрошенный id',
      examples: { notFound: EXAMPLES.notFound },
    }),
    ApiConflictResponse({
      type,
      description: 'Паспорт с такими серией и номером принадлежит другому клиенту',
      examples: { passportTaken: EXAMPLES.passportTaken },
    }),
    bodyErrors(),
    internalError(),
  );
}
