import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export interface SwaggerSettings {
  title: string;
  description: string;
  version: string;
  basePath: string;
  /** Adds service-specific parts (security schemes, tags). */
  customize?: (builder: DocumentBuilder) => DocumentBuilder;
}

function buildOpenApiDocument(app: INestApplication, settings: SwaggerSettings): OpenAPIObject {
  let builder = new DocumentBuilder()
    .setTitle(settings.title)
    .setDescription(settings.description)
    .setVersion(settings.version)
    .addServer(settings.basePath || '/');
  if (settings.customize) builder = settings.customize(builder);
  return SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controllerKey, methodKey) =>
      `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
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
