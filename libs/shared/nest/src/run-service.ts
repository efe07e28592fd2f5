import { DynamicModule, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  DatabaseModuleOptions,
  isMigrationCommand,
  runMigrationCommand,
} from '@bank/shared/database';
import { CoreModule, ENVIRONMENT } from './core.module';
import { listen, portInUse } from './configure';
import { waitForStartDatabase } from './start-up-wait';
import { BaseEnvironment, maskCredentials, validateEnvironment } from '@bank/shared/config';
import { createHttpAdapter } from '@bank/shared/http';
import { Clock } from '@bank/shared/calendar';
import { ErrorShapeFilter } from '@bank/shared/error-shape';
import { bootstrapLogger, logFatal } from '@bank/shared/logging';

export interface ServiceDefinition<T extends BaseEnvironment> {
  serviceName: string;
  environment: new () => T;
  /** Builds the root module (e.g. `() => AppModule.register()`); configuration is validated then. */
  appModule: () => DynamicModule;
  /** The service's configureApp, shared with its end-to-end tests. */
  configureApp: (app: NestFastifyApplication) => void;
  /** The service's error filter: its body while start-up waits for the database. */
  errorFilter: (clock: Clock, timeZone: string) => ErrorShapeFilter;
  database: Pick<DatabaseModuleOptions, 'serviceName' | 'entities' | 'migrations'>;
  /** Where `migrate:generate` writes new migrations. */
  migrationsDir: string;
}

/**
 * The entry point of a service's main.ts: `node main.js` serves HTTP; `node main.js migrate`
 * (`migrate:revert`, `migrate:show`, `migrate:generate Name`) runs a migration command and exits.
 * A failure to start prints the reason (e.g. the bad configuration variable) and exits 1.
 */
export function runService<T extends BaseEnvironment>(service: ServiceDefinition<T>): void {
  const [command, ...args] = process.argv.slice(2);
  const run = isMigrationCommand(command)
    ? runMigrationCommand(
        command,
        args,
        service.database,
        CoreModule.databaseSettings(
          validateEnvironment(service.environment, process.env),
          service.serviceName,
        ),
        service.migrationsDir,
      )
    : serve(service);
  run.catch((error: unknown) => {
    // A driver's or parser's message may quote a URL: never with its password. Where the
    // service logs JSON (production), the reason is a JSON line too.
    const reason = maskCredentials(error instanceof Error ? error.message : String(error));
    if (!logFatal(service.serviceName, reason)) console.error(reason);
    process.exit(1);
  });
}

async function serve<T extends BaseEnvironment>(service: ServiceDefinition<T>): Promise<void> {
  // Nest's lines are buffered until configureApp attaches the service's logger; if the start
  // fails first (the database out of reach), Nest writes them with the logger given here: JSON
  // lines where the service logs JSON (production), else Nest's own.
  const logger = bootstrapLogger(service.serviceName);
  // With a database server (not the embedded one), wait for it with the port answering 503,
  // rather than fail after a few seconds and leave clients with refused connections.
  const env = validateEnvironment(service.environment, process.env);
  const waiting = env.DATABASE_URL
    ? await waitForStartDatabase({
        serviceName: service.serviceName,
        env,
        errorFilter: service.errorFilter,
        portInUse: () => portInUse(env),
        logger,
      })
    : undefined;
  // SIGTERM or SIGINT while waiting: nothing started, nothing to close (a try still connecting
  // is dropped).
  if (env.DATABASE_URL && !waiting) process.exit(0);
  const app = await NestFactory.create<NestFastifyApplication>(
    service.appModule(),
    createHttpAdapter(),
    logger ? { bufferLogs: true, logger } : { bufferLogs: true },
  );
  service.configureApp(app);
  exitByShutdownDeadline(
    app.get<BaseEnvironment>(ENVIRONMENT).SHUTDOWN_TIMEOUT_MS,
    service.serviceName,
  );
  // The stand-in answers until here: the port refuses connections only for this moment.
  await waiting?.close();
  const urls = await listen(app);
  new Logger('NestApplication').log(
    `Listening at ${urls.url} (Swagger UI ${urls.docs}, health ${urls.health})`,
  );
}

/** After SHUTDOWN_TIMEOUT_MS the HTTP connections are closed; this is what closing the rest may take. */
export const SHUTDOWN_REST_MS = 5_000;

/**
 * The graceful shutdown (enableShutdownHooks: app.close() on SIGTERM) closes the HTTP
 * connections left at SHUTDOWN_TIMEOUT_MS (see installGracefulShutdown); should anything after that
 * hang (the database pool, a background job), the process still ends SHUTDOWN_REST_MS later,
 * inside the orchestrator's grace period, instead of being killed at its end.
 */
function exitByShutdownDeadline(shutdownTimeoutMs: number, serviceName: string): void {
  const arm = (signal: NodeJS.Signals) => {
    setTimeout(() => {
      const reason = `Shutdown on ${signal} not finished after ${shutdownTimeoutMs + SHUTDOWN_REST_MS} ms: exiting`;
      if (!logFatal(serviceName, reason)) console.error(reason);
      process.exit(1);
    }, shutdownTimeoutMs + SHUTDOWN_REST_MS).unref();
  };
  process.once('SIGTERM', arm);
  process.once('SIGINT', arm);
}
