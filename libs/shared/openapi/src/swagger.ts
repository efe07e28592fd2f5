import { INestApplication, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule, getSchemaPath } from '@nestjs/swagger';
import { BEARER_SCHEME, REQUIRED_SCOPES_EXTENSION } from '@bank/shared/auth';
import type {
  HeaderObject,
  OperationObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** One OpenAPI document a service serves, with its Swagger UI. */
export interface ApiDocumentSettings {
  /**
   * Where it is served under the base path: '' for the service's own API ({basePath}/docs,
   * {basePath}/docs-json), '/user-api' for a service mounted there ({basePath}/user-api/docs).
   * The document's server is {basePath}{prefix}; its paths are relative to it.
   */
  prefix: string;
  title: string;
  description: string;
  version: string;
  /**
   * The modules whose controllers it describes (their routes must lie under the prefix).
   * Omitted: every module no other document claims (the service's own API and health).
   */
  include?: Type<unknown>[];
  /** Every tag its operations use, in the order Swagger UI shows them. */
  tags: { name: string; description: string }[];
  /** Adds document-specific parts (security schemes). */
  customize?: (builder: DocumentBuilder) => DocumentBuilder;
  /**
   * The summary of each callback operation, by callback name (@nestjs/swagger's ApiCallbacks
   * cannot give one); a callback operation that has a summary keeps it.
   */
  callbackSummaries?: Record<string, string>;
}

export interface SwaggerSettings {
  basePath: string;
  /** The documents of the service; exactly one has no include (the service's own API). */
  documents: ApiDocumentSettings[];
  /** The platform's own answers in the service's error body; see documentPlatformAnswers. */
  platformAnswers?: PlatformAnswers;
}

/** How a service documents the answers the platform gives on every route. */
export interface PlatformAnswers {
  /** The error body's DTO class. */
  body: Type<unknown>;
  /** Examples of the body, by name (rendered by the service's filter). */
  examples: {
    databaseUnavailable: object;
    /** A write (POST, PUT, PATCH, DELETE) whose database connection was lost in flight. */
    databaseOutcomeUnknown: object;
    shuttingDown: object;
    requestTimeout: object;
    tooManyRequests: object;
    payloadTooLarge: object;
    unsupportedMediaType: object;
    malformedJson: object;
    internalError: object;
    /** The 405 to a method the path does not support, and the methods it does (Allow). */
    methodNotAllowed: (method: string, allowed: string[]) => object;
    /** The bearer authentication's answers (operations with RequireScopes). */
    missingToken: object;
    invalidToken: object;
    /** For the scopes of an operation. */
    missingScope: (scopes: string[]) => object;
    authKeysUnavailable: object;
  };
  /** Descriptions, in the language of the service's documentation. */
  texts: {
    unavailable: string;
    /** Appended to the description of a 503 the route declares itself. */
    alsoUnavailable: string;
    retryAfter: string;
    requestTimeout: string;
    tooManyRequests: string;
    payloadTooLarge: string;
    unsupportedMediaType: string;
    /** Appended to the description of a 400 of an operation with a body. */
    alsoMalformedJson: string;
    internalError: string;
    /** The 405 of every operation: the path exists, the method is not one of its. */
    methodNotAllowed: string;
    allow: string;
    requestId: string;
    /** The IETF draft's RateLimit-Policy and RateLimit fields (see libs/shared/nest rate-limit). */
    rateLimitPolicy: string;
    rateLimit: string;
    /** The bearer scheme's description. */
    bearerScheme: string;
    unauthorized: string;
    wwwAuthenticate: string;
    /** Followed by the scopes the operation requires. */
    forbidden: string;
    /** Appended to the description of a 403 the route declares itself. */
    alsoForbidden: string;
  };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The response header every answer carries (see installRequestId). */
export const REQUEST_ID_RESPONSE_HEADER = 'X-Request-Id';

/**
 * The rate limit's fields (draft-ietf-httpapi-ratelimit-headers) on every answer the rate limit
 * counted, and the forms they take (libs/shared/nest rate-limit.ts writes them).
 */
export const RATE_LIMIT_POLICY_HEADER = 'RateLimit-Policy';
export const RATE_LIMIT_HEADER = 'RateLimit';
export const RATE_LIMIT_POLICY_PATTERN = '^"[a-z-]+";q=\\d+(;w=\\d+)?$';
export const RATE_LIMIT_PATTERN = '^"[a-z-]+";r=\\d+;t=\\d+$';

function isHealth(operation: OperationObject): boolean {
  return operation.operationId?.startsWith('Health_') ?? false;
}

/**
 * The operations anyone may call declare so (`security: []`) instead of leaving it unsaid: the
 * health check and the probes (the kubelet calls them without credentials). A new operation
 * without security still fails the lint (security-defined), until it gets its own.
 */
function documentPublicOperations(document: OpenAPIObject): void {
  for (const path of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = path[method];
      if (operation && isHealth(operation)) operation.security = [];
    }
  }
}

/**
 * The callbacks' operations (the requests this service sends to a subscriber's URL): the
 * summary the settings give each, and `security: []`, since the API's security schemes are
 * how a client calls this service, not how it calls the subscriber (its credential is the
 * signature the operation describes).
 */
function documentCallbacks(document: OpenAPIObject, summaries: Record<string, string>): void {
  for (const path of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      for (const [name, callback] of Object.entries(path[method]?.callbacks ?? {})) {
        for (const item of Object.values(callback as Record<string, Record<string, unknown>>)) {
          for (const callbackMethod of HTTP_METHODS) {
            const operation = item[callbackMethod] as OperationObject | undefined;
            if (!operation) continue;
            if (!operation.summary && summaries[name]) operation.summary = summaries[name];
            operation.security ??= [];
          }
        }
      }
    }
  }
}

/** The methods a path of the document answers (Allow): its operations', HEAD with GET. */
function allowedMethods(path: Record<string, unknown>): string[] {
  const methods = HTTP_METHODS.filter((method) => path[method]).map((method) =>
    method.toUpperCase(),
  );
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  return methods.sort();
}

/** Operations whose 503 may leave a write's outcome unknown (the connection lost in flight). */
const WRITE_METHODS = new Set<string>(['post', 'put', 'patch', 'delete']);

/**
 * The answers every route may give whatever its handler does (see ErrorShapeFilter,
 * libs/shared/http and the rate limit of CoreModule): 503 with Retry-After when the database
 * is unavailable or the service is shutting down, 500 on an unexpected error, 429 with the
 * rate-limit headers when RATE_LIMIT is set, and, for a route with a body, 408 when it does
 * not arrive in time, 413 over the body limit, 415 when it is not JSON and 400 when it is
 * malformed JSON. Every response carries X-Request-Id. The health check is never rate limited
 * and answers its own 503.
 */
function documentPlatformAnswers(document: OpenAPIObject, answers: PlatformAnswers): void {
  const schema = { $ref: getSchemaPath(answers.body) };
  const { texts } = answers;
  const example = (value: object) => ({
    summary: String((value as { message?: string }).message),
    value,
  });
  const errorContent = (examples: Record<string, object>) => ({
    'application/json': {
      schema,
      examples: Object.fromEntries(
        Object.entries(examples).map(([name, value]) => [name, example(value)]),
      ),
    },
  });
  const retryAfter: HeaderObject = {
    description: texts.retryAfter,
    schema: { type: 'integer', minimum: 1 },
  };
  const requestId = requestIdHeader(texts);
  const rateLimit: Record<string, HeaderObject> = {
    [RATE_LIMIT_POLICY_HEADER]: {
      description: texts.rateLimitPolicy,
      schema: { type: 'string', pattern: RATE_LIMIT_POLICY_PATTERN, example: '"default";q=100;w=60' },
    },
    [RATE_LIMIT_HEADER]: {
      description: texts.rateLimit,
      schema: { type: 'string', pattern: RATE_LIMIT_PATTERN, example: '"default";r=42;t=17' },
    },
  };
  const addIfMissing = (operation: OperationObject, status: string, response: ResponseObject) => {
    if (!operation.responses[status]) operation.responses[status] = response;
  };
  for (const path of Object.values(document.paths)) {
    const allowed = allowedMethods(path as Record<string, unknown>);
    // A method the path lacks, for the example (Allow is the same whichever it is).
    const wrong = ['DELETE', 'PUT', 'PATCH', 'POST', 'GET'].find((m) => !allowed.includes(m));
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = path[method];
      if (!operation) continue;
      if (wrong) {
        addIfMissing(operation, '405', {
          description: texts.methodNotAllowed,
          headers: {
            Allow: {
              description: texts.allow,
              schema: { type: 'string', example: allowed.join(', ') },
            },
          },
          content: errorContent({
            methodNotAllowed: answers.examples.methodNotAllowed(wrong, allowed),
          }),
        });
      }
      if (!isHealth(operation)) {
        const existing = operation.responses['503'] as ResponseObject | undefined;
        const existingJson = existing?.content?.['application/json'];
        operation.responses['503'] = {
          description: existing
            ? `${existing.description}. ${texts.alsoUnavailable}`
            : texts.unavailable,
          headers: { ...existing?.headers, 'Retry-After': retryAfter },
          content: {
            'application/json': {
              ...existingJson,
              schema: existingJson?.schema ?? schema,
              examples: {
                ...existingJson?.examples,
                ...errorContent({
                  databaseUnavailable: answers.examples.databaseUnavailable,
                  ...(WRITE_METHODS.has(method)
                    ? { databaseOutcomeUnknown: answers.examples.databaseOutcomeUnknown }
                    : {}),
                  shuttingDown: answers.examples.shuttingDown,
                })['application/json'].examples,
              },
            },
          },
        };
        addIfMissing(operation, '500', {
          description: texts.internalError,
          content: errorContent({ internalError: answers.examples.internalError }),
        });
        addIfMissing(operation, '429', {
          description: texts.tooManyRequests,
          headers: { 'Retry-After': retryAfter, ...rateLimit },
          content: errorContent({ tooManyRequests: answers.examples.tooManyRequests }),
        });
        if (operation.requestBody) {
          addIfMissing(operation, '408', {
            description: texts.requestTimeout,
            content: errorContent({ requestTimeout: answers.examples.requestTimeout }),
          });
          addIfMissing(operation, '413', {
            description: texts.payloadTooLarge,
            content: errorContent({ payloadTooLarge: answers.examples.payloadTooLarge }),
          });
          addIfMissing(operation, '415', {
            description: texts.unsupportedMediaType,
            content: errorContent({ unsupportedMediaType: answers.examples.unsupportedMediaType }),
          });
          const badRequest = operation.responses['400'] as ResponseObject | undefined;
          const badRequestJson = badRequest?.content?.['application/json'];
          const hasMalformedJson = Object.keys(badRequestJson?.examples ?? {}).includes(
            'malformedJson',
          );
          if (!hasMalformedJson) {
            operation.responses['400'] = {
              ...badRequest,
              description: badRequest
                ? `${badRequest.description}. ${texts.alsoMalformedJson}`
                : texts.alsoMalformedJson,
              content: {
                'application/json': {
                  ...badRequestJson,
                  schema: badRequestJson?.schema ?? schema,
                  examples: {
                    ...badRequestJson?.examples,
                    ...errorContent({ malformedJson: answers.examples.malformedJson })[
                      'application/json'
                    ].examples,
                  },
                },
              },
            };
          }
        }
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const answer = response as ResponseObject;
        const throttled = !isHealth(operation) && /^2/.test(status);
        answer.headers = {
          ...answer.headers,
          [REQUEST_ID_RESPONSE_HEADER]: requestId,
          ...(throttled ? rateLimit : {}),
        };
      }
    }
  }
}

/** Removes the prefix from the document's paths (they are relative to its server). */
function relativeTo(document: OpenAPIObject, prefix: string): void {
  if (!prefix) return;
  document.paths = Object.fromEntries(
    Object.entries(document.paths).map(([route, item]) => {
      if (!route.startsWith(`${prefix}/`)) {
        throw new Error(`OpenAPI document ${prefix}: route ${route} lies outside its prefix`);
      }
      return [route.slice(prefix.length), item];
    }),
  );
}

/** X-Request-Id, which every response carries. */
function requestIdHeader(texts: { requestId: string }): HeaderObject {
  return {
    description: texts.requestId,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  };
}

/**
 * The 401 and 403 of every operation behind the bearer JWT (RequireScopes), in the service's
 * error body and language, with WWW-Authenticate; a 403 the route declares itself (e.g. a
 * business refusal) keeps its examples and gains the scope's.
 */
function documentBearerAuth(document: OpenAPIObject, answers: PlatformAnswers): void {
  const schema = { $ref: getSchemaPath(answers.body) };
  const example = (value: object) => ({
    summary: String((value as { message?: string }).message),
    value,
  });
  const challenge = {
    description: answers.texts.wwwAuthenticate,
    schema: { type: 'string' as const },
  };
  const requestId = requestIdHeader(answers.texts);
  for (const path of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = path[method];
      const secured = operation?.security?.some((requirement) => BEARER_SCHEME in requirement);
      if (!operation || !secured) continue;
      const scopes = ((operation as unknown as Record<string, unknown>)[
        REQUIRED_SCOPES_EXTENSION
      ] ?? []) as string[];
      operation.responses['401'] = {
        description: answers.texts.unauthorized,
        headers: { 'WWW-Authenticate': challenge, [REQUEST_ID_RESPONSE_HEADER]: requestId },
        content: {
          'application/json': {
            schema,
            examples: {
              missingToken: example(answers.examples.missingToken),
              invalidToken: example(answers.examples.invalidToken),
            },
          },
        },
      };
      const forbidden = `${answers.texts.forbidden} ${scopes.join(' ')}`;
      const existing = operation.responses['403'] as ResponseObject | undefined;
      const existingJson = existing?.content?.['application/json'];
      operation.responses['403'] = {
        description: existing
          ? `${existing.description}. ${answers.texts.alsoForbidden} ${scopes.join(' ')}`
          : forbidden,
        headers: {
          ...existing?.headers,
          'WWW-Authenticate': challenge,
          [REQUEST_ID_RESPONSE_HEADER]: requestId,
        },
        content: {
          'application/json': {
            ...existingJson,
            schema: existingJson?.schema ?? schema,
            examples: {
              ...existingJson?.examples,
              missingScope: example(answers.examples.missingScope(scopes)),
            },
          },
        },
      };
      const unavailable = operation.responses['503'] as ResponseObject | undefined;
      const unavailableJson = unavailable?.content?.['application/json'];
      if (unavailableJson) {
        unavailableJson.examples = {
          ...unavailableJson.examples,
          authKeysUnavailable: example(answers.examples.authKeysUnavailable),
        };
      }
    }
  }
}

function operationIds(document: OpenAPIObject): string[] {
  return Object.values(document.paths).flatMap((item) =>
    HTTP_METHODS.flatMap((method) => (item[method]?.operationId ? [item[method].operationId] : [])),
  );
}

const OPERATION_ID_FACTORY = (controllerKey: string, methodKey: string) =>
  `${controllerKey.replace(/Controller$/, '')}_${methodKey}`;

/**
 * The documents of a service, one per ApiDocumentSettings. The global prefix (BASE_PATH) is the
 * server, never part of a path: a client joining them must not get it twice. Every route
 * belongs to exactly one document (checked here, so a new module cannot fall out of them).
 */
export function buildOpenApiDocuments(
  app: INestApplication,
  settings: SwaggerSettings,
): Map<ApiDocumentSettings, OpenAPIObject> {
  const claimed = settings.documents.flatMap((document) => document.include ?? []);
  const unclaimed = [...app.get(ModulesContainer).values()]
    .map((module) => module.metatype as Type<unknown>)
    .filter((metatype) => !claimed.includes(metatype));
  const documents = new Map<ApiDocumentSettings, OpenAPIObject>();
  for (const documentSettings of settings.documents) {
    let builder = new DocumentBuilder()
      .setTitle(documentSettings.title)
      .setDescription(documentSettings.description)
      .setVersion(documentSettings.version)
      .addServer(`${settings.basePath}${documentSettings.prefix}` || '/');
    for (const tag of documentSettings.tags) builder = builder.addTag(tag.name, tag.description);
    // The service's own API may run behind the bearer JWT (AUTH_MODE=jwt); the reference
    // services keep their X-secret.
    if (settings.platformAnswers && !documentSettings.include) {
      builder = builder.addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: settings.platformAnswers.texts.bearerScheme,
        },
        BEARER_SCHEME,
      );
    }
    if (documentSettings.customize) builder = documentSettings.customize(builder);
    const document = SwaggerModule.createDocument(app, builder.build(), {
      include: documentSettings.include ?? unclaimed,
      ignoreGlobalPrefix: true,
      operationIdFactory: OPERATION_ID_FACTORY,
      extraModels: settings.platformAnswers ? [settings.platformAnswers.body] : [],
    });
    relativeTo(document, documentSettings.prefix);
    documentPublicOperations(document);
    documentCallbacks(document, documentSettings.callbackSummaries ?? {});
    if (settings.platformAnswers) {
      documentPlatformAnswers(document, settings.platformAnswers);
      documentBearerAuth(document, settings.platformAnswers);
    }
    documents.set(documentSettings, document);
  }
  const everything = operationIds(
    SwaggerModule.createDocument(app, new DocumentBuilder().build(), {
      operationIdFactory: OPERATION_ID_FACTORY,
    }),
  );
  const documented = [...documents.values()].flatMap(operationIds);
  const missing = everything.filter((id) => !documented.includes(id));
  if (missing.length > 0 || documented.length !== everything.length) {
    throw new Error(
      `OpenAPI: every route must be in exactly one document; missing or repeated: ${
        missing.join(', ') || documented.join(', ')
      }`,
    );
  }
  return documents;
}

/** Swagger UI at {basePath}{prefix}/docs and the JSON document at {basePath}{prefix}/docs-json. */
export function setupSwagger(
  app: INestApplication,
  settings: SwaggerSettings,
): Map<ApiDocumentSettings, OpenAPIObject> {
  const documents = buildOpenApiDocuments(app, settings);
  for (const [documentSettings, document] of documents) {
    const at = `${settings.basePath}${documentSettings.prefix}`;
    SwaggerModule.setup(`${at}/docs`, app, document, {
      jsonDocumentUrl: `${at}/docs-json`,
      yamlDocumentUrl: `${at}/docs-yaml`,
      ui: true,
    });
  }
  return documents;
}
