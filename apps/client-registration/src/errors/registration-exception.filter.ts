import { Catch } from '@nestjs/common';
import { ErrorShapeFilter, Problem } from '@bank/shared/error-shape';
import { RegistrationErrorBody } from './registration-error-body.dto';

/** Renders every failure as the registration error body, in Russian. */
@Catch()
export class RegistrationExceptionFilter extends ErrorShapeFilter {
  readonly bodyType = RegistrationErrorBody;
  readonly openApiTexts = {
    unavailable: 'База данных недоступна или сервис останавливается; повторите после Retry-After',
    alsoUnavailable: 'Также: база данных недоступна или сервис останавливается',
    retryAfter: 'Через сколько секунд повторить запрос',
    requestTimeout: 'Запрос (заголовки и тело) не получен вовремя',
    tooManyRequests:
      'Больше RATE_LIMIT запросов от вызывающего (субъект токена при AUTH_MODE=jwt, иначе адрес клиента) за RATE_LIMIT_WINDOW_MS по всем маршрутам (только если RATE_LIMIT задан)',
    payloadTooLarge: 'Тело запроса больше 1 МиБ',
    unsupportedMediaType: 'Тело запроса не в формате application/json',
    alsoMalformedJson: 'Также: тело запроса — некорректный JSON',
    internalError:
      'Непредвиденная ошибка (записана в журнал с идентификатором запроса; тело без деталей)',
    requestId:
      'X-Request-Id запроса (если это 1-128 символов A-Z a-z 0-9 . _ : -), иначе новый UUID; ' +
      'записи журнала о запросе содержат его',
    methodNotAllowed:
      'Путь существует, но не поддерживает этот метод; заголовок Allow перечисляет поддерживаемые',
    allow: 'Методы, которые поддерживает путь',
    rateLimitPolicy:
      'Ограничение частоты (RateLimit-Policy, черновик IETF): q запросов за w секунд на вызывающего — субъект ' +
      'токена при AUTH_MODE=jwt, иначе адрес клиента; считаются все маршруты, кроме проверки здоровья (только если RATE_LIMIT задан)',
    rateLimit:
      'Квота вызывающего сейчас (RateLimit, черновик IETF): r запросов осталось, через t секунд она восстановится (только если RATE_LIMIT задан)',

    bearerScheme:
      'JWT настроенного издателя с областью доступа, указанной у операции в x-required-scopes ' +
      '(утверждение scope через пробел или scp). Нужен, только если сервис запущен с AUTH_MODE=jwt.',
    unauthorized:
      'AUTH_MODE=jwt: нет токена доступа или токен не проходит проверку (подпись, издатель, аудитория, срок)',
    wwwAuthenticate: 'Вызов Bearer (RFC 6750) с error и error_description или scope',
    forbidden: 'AUTH_MODE=jwt: у токена нет области доступа',
    alsoForbidden: 'Также (AUTH_MODE=jwt): у токена нет области доступа',
  };

  protected render(problem: Problem, timestamp: string): RegistrationErrorBody {
    return buildRegistrationErrorBody(problem, timestamp);
  }
}

/**
 * class-validator words a few violations itself, in English and without a hook for another
 * message (unknown fields, a body that is not an object). The registration error body is
 * Russian throughout, so those are translated here before the body lists them.
 */
const TRANSLATIONS: { pattern: RegExp; russian: string }[] = [
  { pattern: /^property .+ should not exist$/, russian: 'поле не предусмотрено' },
  {
    pattern: /^an unknown value was passed to the validate function$/,
    russian: 'тело запроса должно быть JSON-объектом',
  },
  {
    pattern: /^must not contain NUL characters or unpaired UTF-16 surrogates$/,
    russian: 'не должно содержать символ NUL или непарные суррогаты UTF-16',
  },
  { pattern: /^is nested deeper than (\d+) levels$/, russian: 'слишком глубокая вложенность' },
];

export function translateFieldMessage(message: string): string {
  return message
    .split('; ')
    .map((part) => TRANSLATIONS.find(({ pattern }) => pattern.test(part))?.russian ?? part)
    .join('; ');
}

interface RussianText {
  title: string;
  message: string;
}

/** Russian titles and messages of the failures that are not the service's own domain errors. */
const GENERIC: Record<string, RussianText> = {
  VALIDATION_FAILED: { title: 'Ошибка валидации', message: 'Запрос содержит некорректные данные' },
  MALFORMED_JSON: {
    title: 'Некорректный запрос',
    message: 'Тело запроса не является корректным JSON',
  },
  ROUTE_NOT_FOUND: { title: 'Ресурс не найден', message: 'Запрошенный ресурс не существует' },
  BODY_NOT_UTF8: {
    title: 'Некорректный запрос',
    message: 'Тело запроса не в кодировке UTF-8',
  },
  BODY_TOO_COMPLEX: {
    title: 'Некорректный запрос',
    message: 'Тело запроса содержит более 500 полей или вложено глубже 16 уровней',
  },
  PAYLOAD_TOO_LARGE: {
    title: 'Слишком большой запрос',
    message: 'Размер тела запроса превышает 1 МиБ',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    title: 'Неподдерживаемый тип содержимого',
    message: 'Тело запроса должно быть в формате application/json',
  },
  TOO_MANY_REQUESTS: {
    title: 'Слишком много запросов',
    message: 'Превышен лимит запросов, повторите позже',
  },
  UNIQUE_VIOLATION: { title: 'Конфликт данных', message: 'Такая запись уже существует' },
  REQUEST_TIMEOUT: {
    title: 'Превышено время ожидания запроса',
    message: 'Запрос не был получен полностью за отведённое время',
  },
  HEADERS_TOO_LARGE: {
    title: 'Слишком большие заголовки',
    message: 'Заголовки запроса слишком велики',
  },
  MALFORMED_URL: { title: 'Некорректный запрос', message: 'Некорректный адрес запроса' },
  URI_TOO_LONG: {
    title: 'Слишком длинный адрес',
    message: 'Параметр пути длиннее 200 символов',
  },
  BAD_REQUEST: { title: 'Некорректный запрос', message: 'Некорректный HTTP-запрос' },
  SHUTTING_DOWN: {
    title: 'Сервис недоступен',
    message: 'Сервис останавливается, повторите запрос позже',
  },
  DATABASE_UNAVAILABLE: {
    title: 'Сервис недоступен',
    message: 'База данных временно недоступна, повторите запрос позже',
  },
  DATABASE_OUTCOME_UNKNOWN: {
    title: 'Сервис недоступен',
    message:
      'Соединение с базой данных прервалось во время записи, изменения могли сохраниться: ' +
      'повторите запрос с тем же Idempotency-Key, а без ключа сначала проверьте, сохранены ли они',
  },
  AUTH_TOKEN_MISSING: {
    title: 'Требуется аутентификация',
    message: 'Нужен токен доступа (заголовок Authorization: Bearer <токен>)',
  },
  AUTH_TOKEN_INVALID: {
    title: 'Требуется аутентификация',
    message: 'Токен доступа недействителен',
  },
  AUTH_SCOPE_MISSING: {
    title: 'Доступ запрещён',
    message: 'Токен доступа не даёт права на эту операцию',
  },
  AUTH_KEYS_UNAVAILABLE: {
    title: 'Сервис недоступен',
    message: 'Ключи издателя токенов недоступны, повторите запрос позже',
  },
  INTERNAL_ERROR: {
    title: 'Внутренняя ошибка сервера',
    message: 'Произошла непредвиденная ошибка, повторите запрос позже',
  },
};

const BY_STATUS: Record<number, RussianText> = {
  400: { title: 'Некорректный запрос', message: 'Запрос не может быть обработан' },
  401: { title: 'Требуется аутентификация', message: 'Запрос не аутентифицирован' },
  403: { title: 'Доступ запрещён', message: 'Операция запрещена' },
  404: GENERIC.ROUTE_NOT_FOUND,
  405: { title: 'Метод не поддерживается', message: 'Метод не поддерживается для этого ресурса' },
  408: GENERIC.REQUEST_TIMEOUT,
  409: GENERIC.UNIQUE_VIOLATION,
  413: GENERIC.PAYLOAD_TOO_LARGE,
  414: GENERIC.URI_TOO_LONG,
  415: GENERIC.UNSUPPORTED_MEDIA_TYPE,
  429: GENERIC.TOO_MANY_REQUESTS,
  431: GENERIC.HEADERS_TOO_LARGE,
  503: {
    title: 'Сервис недоступен',
    message: 'Сервис временно недоступен, повторите запрос позже',
  },
};

function buildRegistrationErrorBody(problem: Problem, timestamp: string): RegistrationErrorBody {
  const generic = GENERIC[problem.code] ?? BY_STATUS[problem.status] ?? GENERIC.INTERNAL_ERROR;
  // Domain errors carry their own Russian title and message; everything else gets a generic text
  // (framework messages are English and may leak internals).
  const own = problem.title !== undefined;
  const body: RegistrationErrorBody = {
    timestamp,
    status: problem.status,
    error: own ? (problem.title as string) : generic.title,
    message: own ? problem.message : generic.message,
  };
  if (problem.fieldErrors) {
    body.details = problem.fieldErrors.map(
      ({ path, message }) => `${path}: ${translateFieldMessage(message)}`,
    );
  }
  return body;
}
