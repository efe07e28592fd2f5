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
  /** The service's error body: the platform's own answers (503, 408) are documented with it. */
  errorBody?: Type<unknown>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * The answers every route may give whatever its handler does (see ErrorShapeFilter and
 * createHttpAdapter): 503 with Retry-After when the database is unavailable or the service is
 * shutting down, and 408 when a request with a body does not arrive in time. The health check
 * answers in its own shape and is left as it is.
 */
function documentPlatformAnswers(document: OpenAPIObject, errorBody: Type<unknown>): void {
  const content = { 'application/json': { schema: { $ref: getSchemaPath(errorBody) } } };
  const retryAfter = {
    description: 'Seconds to wait before retrying (RETRY_AFTER_SECONDS)',
    schema: { type: 'integer' as const, minimum: 1 },
  };
  for (const path of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = path[method];
      if (!operation || operation.operationId?.startsWith('Health_')) continue;
      const existing = operation.responses['503'] as ResponseObject | undefined;
      operation.responses['503'] = {
        ...(existing ?? { content }),
        description: existing
          ? `${existing.description}. Also when the database is unavailable or the service is shutting down`
          : 'The database is unavailable, or the service is shutting down; retry after Retry-After',
        headers: { ...existing?.headers, 'Retry-After': retryAfter },
      };
      if (operation.requestBody && !operation.responses['408']) {
        operation.responses['408'] = {
          description:
            'The request (headers and body) did not arrive within HTTP_REQUEST_TIMEOUT_MS',
          content,
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
    extraModels: settings.errorBody ? [settings.errorBody] : [],
  });
  if (settings.errorBody) documentPlatformAnswers(document, settings.errorBody);
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
