import { ExceptionFilter, HttpException, INestApplication } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { instrumentHttp, Metrics, serveMetrics } from '@bank/shared/metrics';
import {
  NotInFutureConstraint,
  TextSafetyPipe,
  createValidationPipe,
  useNestContainerForValidation,
} from '@bank/shared/validation';
import { PlatformAnswers, SwaggerSettings, setupSwagger } from '@bank/shared/openapi';
import {
  installCors,
  installErrorAnswers,
  installGracefulShutdown,
  installRequestId,
  installRouteMethods,
  installSecurityHeaders,
  installTimeouts,
  installTrustProxy,
  MethodNotAllowedError,
  parseTrustProxy,
  routeMethodsOf,
  ShuttingDownError,
} from '@bank/shared/http';
import { instrumentFastify } from '@bank/shared/tracing';
import { ErrorShapeFilter } from '@bank/shared/error-shape';
import { BaseEnvironment } from '@bank/shared/config';
import { ENVIRONMENT } from './core.module';
import { operationsPaths } from '@bank/shared/logging';

import {
  AuthKeysUnavailableError,
  InsufficientScopeError,
  InvalidBearerTokenError,
  MissingBearerTokenError,
} from '@bank/shared/auth';

export interface HttpAppSettings {
  swagger: Pick<SwaggerSettings, 'documents'>;
  filter: ExceptionFilter;
}

/**
 * The HTTP setup shared by main.ts and every end-to-end test, on an app created on
 * createHttpAdapter (which holds what Fastify takes only when it is built, the 1 MiB body limit
 * among them): tracing, the route table, graceful shutdown, request ids, logger, security
 * headers, CORS, base path, strict validation, the service's error filter, proxy trust,
 * timeouts, Swagger and shutdown hooks. Before the first route is registered.
 */
export function configureHttpApp(
  app: NestFastifyApplication | INestApplication,
  settings: HttpAppSettings,
): void {
  const env = app.get<BaseEnvironment>(ENVIRONMENT);
  // While tracing runs: the request's server span named after its route, with its request id.
  instrumentFastify((app as NestFastifyApplication).getHttpAdapter().getInstance());
  installRouteMethods(app);
  installGracefulShutdown(app);
  installRequestId(app);
  app.useLogger(app.get(Logger));
  installSecurityHeaders(app);
  installCors(app as NestFastifyApplication, env.CORS_ORIGINS, routeMethodsOf(app));
  const basePath = env.BASE_PATH ?? '';
  if (basePath) app.setGlobalPrefix(basePath);
  // Constraints that are Nest providers (the passport date rules need the clock, CoreModule).
  useNestContainerForValidation(app, [NotInFutureConstraint]);
  const metrics = app.get(Metrics);
  if (metrics.enabled) {
    const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
    instrumentHttp(fastify, metrics, { skipRoutes: [...operationsPaths(basePath)] });
    serveMetrics(fastify, metrics);
  }
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
  installErrorAnswers(app, settings.filter);
  installTrustProxy(app, parseTrustProxy(env.TRUST_PROXY));
  installTimeouts(app, {
    requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
  });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  // DOCS_ENABLED=false: no Swagger UI and no OpenAPI document are served (404 like any route).
  if (!env.DOCS_ENABLED) return;
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
  const lostInFlight = new Error('Connection terminated unexpectedly');
  return {
    body: filter.bodyType,
    texts: filter.openApiTexts,
    examples: {
      databaseUnavailable: filter.example(databaseDown, EXAMPLE_TIMESTAMP),
      databaseOutcomeUnknown: filter.example(lostInFlight, EXAMPLE_TIMESTAMP, 'POST'),
      shuttingDown: filter.example(new ShuttingDownError(), EXAMPLE_TIMESTAMP),
      requestTimeout: filter.example({ code: 'ERR_HTTP_REQUEST_TIMEOUT' }, EXAMPLE_TIMESTAMP),
      tooManyRequests: filter.example(
        new HttpException('Too Many Requests', 429),
        EXAMPLE_TIMESTAMP,
      ),
      payloadTooLarge: filter.example({ code: 'FST_ERR_CTP_BODY_TOO_LARGE' }, EXAMPLE_TIMESTAMP),
      unsupportedMediaType: filter.example(
        { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' },
        EXAMPLE_TIMESTAMP,
      ),
      malformedJson: filter.example({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' }, EXAMPLE_TIMESTAMP),
      internalError: filter.example(new Error('unexpected'), EXAMPLE_TIMESTAMP),
      methodNotAllowed: (method: string, allowed: string[]) =>
        filter.example(new MethodNotAllowedError(method, allowed), EXAMPLE_TIMESTAMP),

      missingToken: filter.example(new MissingBearerTokenError('service'), EXAMPLE_TIMESTAMP),
      invalidToken: filter.example(
        new InvalidBearerTokenError('service', 'expired'),
        EXAMPLE_TIMESTAMP,
      ),
      missingScope: (scopes: string[]) =>
        filter.example(new InsufficientScopeError('service', scopes), EXAMPLE_TIMESTAMP),
      authKeysUnavailable: filter.example(new AuthKeysUnavailableError(), EXAMPLE_TIMESTAMP),
    },
  };
}

/** Where a started service answers: its base URL (with BASE_PATH), Swagger UI and health check. */
export interface ServiceUrls {
  url: string;
  docs: string;
  health: string;
}

/** The URLs a listening service prints; a wildcard HOST is shown as localhost. */
export function serviceUrls(host: string, port: number, basePath = ''): ServiceUrls {
  const shown = ['0.0.0.0', '::', ''].includes(host)
    ? 'localhost'
    : host.includes(':')
      ? `[${host}]`
      : host;
  const url = `http://${shown}:${port}${basePath}`;
  return { url, docs: `${url}/docs`, health: `${url}/api/health` };
}

/** The failure of a port in use: names the variables that move it. */
export function portInUse(env: BaseEnvironment): Error {
  const own = (env.constructor as typeof BaseEnvironment).PORT_VARIABLE;
  return new Error(
    `Port ${env.PORT} on ${env.HOST} is in use: choose another with ${own ? `${own} or ` : ''}PORT`,
  );
}

/**
 * Starts listening on HOST:PORT from the environment and returns the URLs. A port in use
 * names the variables that move it (both services share one shell under `npm start`).
 */
export async function listen(app: NestFastifyApplication): Promise<ServiceUrls> {
  const env = app.get<BaseEnvironment>(ENVIRONMENT);
  try {
    await app.listen(env.PORT, env.HOST);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw portInUse(env);
  }
  const address = app.getHttpServer().address() as { port: number };
  return serviceUrls(env.HOST, address.port, env.BASE_PATH);
}
