import { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import { ExceptionFilter, INestApplication } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { TextSafetyPipe, createValidationPipe } from '@bank/shared/validation';
import { PlatformAnswers, SwaggerSettings, setupSwagger } from './swagger';
import { configureConnections, routeFrameworkErrorsTo, ShuttingDownError } from './http-adapter';
import { ErrorShapeFilter } from './errors/error-shape.filter';
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
  if (settings.filter instanceof ErrorShapeFilter) {
    const filter = settings.filter;
    filter.configure({
      retryAfterSeconds: env.RETRY_AFTER_SECONDS,
      outageLogIntervalMs: env.ERROR_LOG_INTERVAL_MS,
    });
    // The count of an outage's last interval is written before the process ends.
    (app as NestFastifyApplication)
      .getHttpAdapter()
      .getInstance()
      .addHook('onClose', (_instance, done) => {
        filter.flushLogs();
        done();
      });
  }
  app.useGlobalFilters(settings.filter);
  routeFrameworkErrorsTo(app, settings.filter);
  configureConnections(app, {
    requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
  });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  setupSwagger(app, {
    ...settings.swagger,
    basePath,
    platformAnswers:
      settings.filter instanceof ErrorShapeFilter ? platformAnswers(settings.filter) : undefined,
  });
}

/** The example timestamp of the OpenAPI documents (fixed, so the documents do not drift). */
const EXAMPLE_TIMESTAMP = '2026-11-23T15:04:05.123';

function platformAnswers(filter: ErrorShapeFilter): PlatformAnswers {
  const databaseDown = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  return {
    body: filter.bodyType,
    texts: filter.openApiTexts,
    examples: {
      databaseUnavailable: filter.example(databaseDown, EXAMPLE_TIMESTAMP),
      shuttingDown: filter.example(new ShuttingDownError(), EXAMPLE_TIMESTAMP),
      requestTimeout: filter.example({ code: 'ERR_HTTP_REQUEST_TIMEOUT' }, EXAMPLE_TIMESTAMP),
    },
  };
}

/** helmet's options: its defaults, with a CSP that admits what Swagger UI at /docs needs. */
export const HELMET_OPTIONS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'validator.swagger.io'],
      scriptSrc: ["'self'", "'unsafe-inline'"],
    },
  },
};

/**
 * The headers helmet sets with these options (none depends on the request: no nonces, no
 * function directives), computed once by running its middleware against a recording response.
 */
function securityHeaders(options = HELMET_OPTIONS): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  let failure: unknown;
  helmet(options)(
    {} as IncomingMessage,
    recorder as unknown as ServerResponse,
    (error?: unknown) => (failure = error),
  );
  if (failure) throw failure instanceof Error ? failure : new Error('helmet rejected its options');
  return headers;
}

/**
 * Security headers on every response (helmet defaults: HSTS, nosniff, frame denial, ...).
 * The CSP admits what Swagger UI at /docs needs (its inline styles, data: images, and the
 * inline bootstrap script of @nestjs/swagger's page); the JSON API serves no HTML.
 * The headers are computed once: @fastify/helmet builds helmet's middleware anew for every
 * request, and helmet's middleware validates each header again, together a tenth of the
 * CPU of a GET here (docs/benchmarks.md).
 */
function registerSecurityHeaders(app: NestFastifyApplication): void {
  const headers = securityHeaders();
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (_request, reply, done) => {
      void reply.headers(headers);
      done();
    });
}

/** Starts listening on HOST:PORT from the environment and returns the address. */
export async function listen(app: NestFastifyApplication): Promise<string> {
  const env = app.get<BaseEnvironment>(ENVIRONMENT);
  await app.listen(env.PORT, env.HOST);
  return app.getUrl();
}
