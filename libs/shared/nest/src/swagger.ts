import { INestApplication } from '@nestjs/common';
import { Type } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule, getSchemaPath } from '@nestjs/swagger';
import type {
  OperationObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

export interface SwaggerSettings {
  title: string;
  description: string;
  version: string;
  basePath: string;
  /** Adds service-specific parts (security schemes, tags). */
  customize?: (builder: DocumentBuilder) => DocumentBuilder;
  /** The platform's own answers (503, 408) in the service's error body; see documentPlatformAnswers. */
  platformAnswers?: PlatformAnswers;
}

/** How a service documents the answers the platform gives on every route. */
export interface PlatformAnswers {
  /** The error body's DTO class. */
  body: Type<unknown>;
  /** Examples of the body, by name (rendered by the service's filter). */
  examples: { databaseUnavailable: object; shuttingDown: object; requestTimeout: object };
  /** Descriptions, in the language of the service's documentation. */
  texts: {
    unavailable: string;
    /** Appended to the description of a 503 the route declares itself. */
    alsoUnavailable: string;
    retryAfter: string;
    requestTimeout: string;
  };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * The answers every route may give whatever its handler does (see ErrorShapeFilter and
 * createHttpAdapter): 503 with Retry-After when the database is unavailable or the service is
 * shutting down, and 408 when a request with a body does not arrive in time. The health check
 * answers in its own shape and is left as it is.
 */
function documentPlatformAnswers(document: OpenAPIObject, answers: PlatformAnswers): void {
  const schema = { $ref: getSchemaPath(answers.body) };
  const example = (value: object) => ({
    summary: String((value as { message?: string }).message),
    value,
  });
  const unavailableExamples = {
    databaseUnavailable: example(answers.examples.databaseUnavailable),
    shuttingDown: example(answers.examples.shuttingDown),
  };
  const retryAfter = {
    description: answers.texts.retryAfter,
    schema: { type: 'integer' as const, minimum: 1 },
  };
  for (const path of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = path[method];
      if (!operation || operation.operationId?.startsWith('Health_')) continue;
      const existing = operation.responses['503'] as ResponseObject | undefined;
      const existingJson = existing?.content?.['application/json'];
      operation.responses['503'] = {
        description: existing
          ? `${existing.description}. ${answers.texts.alsoUnavailable}`
          : answers.texts.unavailable,
        headers: { ...existing?.headers, 'Retry-After': retryAfter },
        content: {
          'application/json': {
            ...existingJson,
            schema: existingJson?.schema ?? schema,
            examples: { ...existingJson?.examples, ...unavailableExamples },
          },
        },
      };
      if (operation.requestBody && !operation.responses['408']) {
        operation.responses['408'] = {
          description: answers.texts.requestTimeout,
          content: {
            'application/json': {
              schema,
              examples: { requestTimeout: example(answers.examples.requestTimeout) },
            },
          },
        };
      }
    }
  }
}

function buildOpenApiDocument(app: INestApplication, settings: SwaggerSettings): OpenAPIObject {
  let builder = new DocumentBuilder()
    .setTitle(settings.title)
    .setDescription(settings.description)
    .setVersion(settings.version)
    .addServer(settings.basePath || '/');
  if (settings.customize) builder = settings.customize(builder);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controllerKey, methodKey) =>
      `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
    extraModels: settings.platformAnswers ? [settings.platformAnswers.body] : [],
  });
  if (settings.platformAnswers) documentPlatformAnswers(document, settings.platformAnswers);
  return document;
}

/** Swagger UI at {basePath}/docs and the JSON document at {basePath}/docs-json. */
export function setupSwagger(app: INestApplication, settings: SwaggerSettings): OpenAPIObject {
  const document = buildOpenApiDocument(app, settings);
  SwaggerModule.setup(`${settings.basePath}/docs`, app, document, {
    jsonDocumentUrl: `${settings.basePath}/docs-json`,
    yamlDocumentUrl: `${settings.basePath}/docs-yaml`,
    ui: true,
  });
  return document;
}
