import { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  DatabaseModuleOptions,
  isMigrationCommand,
  runMigrationCommand,
} from '@bank/shared/database';
import { CoreModule } from './core.module';
import { listen } from './configure';
import { BaseEnvironment, validateEnvironment } from './environment';
import { createHttpAdapter } from './http-adapter';

export interface ServiceDefinition<T extends BaseEnvironment> {
  serviceName: string;
  environment: new () => T;
  /** Builds the root module (e.g. `() => AppModule.register()`); configuration is validated then. */
  appModule: () => DynamicModule;
  /** The service's configureApp, shared with its end-to-end tests. */
  configureApp: (app: NestFastifyApplication) => void;
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
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

async function serve<T extends BaseEnvironment>(service: ServiceDefinition<T>): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(
    service.appModule(),
    createHttpAdapter(),
    {
      bufferLogs: true,
    },
  );
  service.configureApp(app);
  await listen(app);
}
