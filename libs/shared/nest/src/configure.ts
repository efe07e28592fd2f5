import helmet from '@fastify/helmet';
import { ExceptionFilter, INestApplication } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { TextSafetyPipe, createValidationPipe } from '@bank/shared/validation';
import { SwaggerSettings, setupSwagger } from './swagger';
import { routeFrameworkErrorsTo } from './http-adapter';
import { BaseEnvironment } from './environment';
import { ENVIRONMENT } from './core.module';

export interface HttpAppSettings {
  swagger: Omit<SwaggerSettings, 'basePath'>;
  filter: ExceptionFilter;
}

/**
 * The HTTP setup shared by main.ts and every end-to-end test: logger, base path,
 * strict validation, the service's error filter, Swagger and shutdown hooks.
 * (The 1 MiB body limit lives in the adapter, see createHttpAdapter.)
 */
export function configureHttpApp(
  app: NestFastifyApplication | INestApplication,
  settings: HttpAppSettings,
): void {
  const env = app.get<BaseEnvironment>(ENVIRONMENT);
  app.useLogger(app.get(Logger));
  registerSecurityHeaders(app as NestFastifyApplication);
  const basePath = env.BASE_PATH ?? '';
  if (basePath) app.setGlobalPrefix(basePath);
  app.useGlobalPipes(new TextSafetyPipe(), createValidationPipe());
  app.useGlobalFilters(settings.filter);
  routeFrameworkErrorsTo(app, settings.filter);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  setupSwagger(app, { ...settings.swagger, basePath });
}

/**
 * Security headers on every response (helmet defaults: HSTS, nosniff, frame denial, ...).
 * The CSP admits what Swagger UI at /docs needs (its inline styles, data: images, and the
 * inline bootstrap script of @nestjs/swagger's page); the JSON API serves no HTML.
 */
export function registerSecurityHeaders(app: NestFastifyApplication): void {
  void app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'validator.swagger.io'],
        scriptSrc: ["'self'", "'unsafe-inline'"],
      },
    },
  });
}

/** Starts listening on HOST:PORT from the environment and returns the address. */
export async function listen(app: NestFastifyApplication): Promise<string> {
  const env = app.get<BaseEnvironment>(ENVIRONMENT);
  await app.listen(env.PORT, env.HOST);
  return app.getUrl();
}
