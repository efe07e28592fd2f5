import { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
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
  configureConnections,
  enableCors,
  parseTrustProxy,
  configureTrustProxy,
  routeFrameworkErrorsTo,
  routeMethodsOf,
  setResponseHeaders,
  ShuttingDownError,
} from '@bank/shared/http';
import { ErrorShapeFilter } from './errors/error-shape.filter';
import { BaseEnvironment } from './environment';
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
 * The HTTP setup shared by main.ts and every end-to-end test: logger, base path, CORS,
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
  enableCors(app as NestFastifyApplication, env.CORS_ORIGINS, routeMethodsOf(app));
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
  routeFrameworkErrorsTo(app, settings.filter);
  configureTrustProxy(app, parseTrustProxy(env.TRUST_PROXY));
  configureConnections(app, {
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
  return {
    body: filter.bodyType,
    texts: filter.openApiTexts,
    examples: {
      databaseUnavailable: filter.example(databaseDown, EXAMPLE_TIMESTAMP),
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

/** helmet's options: its defaults, with a CSP that admits what Swagger UI at /docs needs. */
export const HELMET_OPTIONS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'validator.swagger.io'],
      scriptSrc: ["'self'", "'unsafe-inline'"],
      // helmet's default would send every asset of Swagger UI to https when the page is opened
      // over plain HTTP under any host name but localhost (a blank page); TLS is the ingress's.
      upgradeInsecureRequests: null,
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
 * Security headers on every response (helmet defaults: HSTS, nosniff, frame denial, ...), and
 * no caching (NO_CACHING), including the answers Node and Fastify give before Nest does.
 * The CSP admits what Swagger UI at /docs needs (its inline styles, data: images, and the
 * inline bootstrap script of @nestjs/swagger's page); the JSON API serves no HTML.
 * The headers are computed once: @fastify/helmet builds helmet's middleware anew for every
 * request, and helmet's middleware validates each header again, together a tenth of the
 * CPU of a GET here (docs/benchmarks.md).
 */
function registerSecurityHeaders(app: NestFastifyApplication): void {
  setResponseHeaders(app, { ...securityHeaders(), ...NO_CACHING });
}

/**
 * Every answer may carry personal data (a record, a client, an error about them): no cache
 * (browser, proxy, CDN) may keep it. Pragma for HTTP/1.0 caches.
 */
export const NO_CACHING = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

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
    const own = (env.constructor as typeof BaseEnvironment).PORT_VARIABLE;
    throw new Error(
      `Port ${env.PORT} on ${env.HOST} is in use: choose another with ${own ? `${own} or ` : ''}PORT`,
    );
  }
  const address = app.getHttpServer().address() as { port: number };
  return serviceUrls(env.HOST, address.port, env.BASE_PATH);
}
