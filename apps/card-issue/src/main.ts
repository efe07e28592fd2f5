import './runtime';
import './tracing';
import 'reflect-metadata';
import { join } from 'node:path';
import { maskCredentials, validateEnvironment } from '@bank/shared/config';
import { logFatal } from '@bank/shared/logging';
import { CoreModule, runService } from '@bank/shared/nest';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';
import { CardIssueExceptionFilter } from './errors/card-issue-exception.filter';
import { CardIssueEnvironment, SERVICE_NAME } from './config/environment.config';
import { DATABASE_OPTIONS } from './database/database.config';
import { isOutboxCommand, runOutboxCommandOn } from './outbox/outbox.command';

const [command, ...args] = process.argv.slice(2);
if (isOutboxCommand(command)) {
  // The operator's dead-letter commands (outbox/outbox.command.ts); everything else is runService's.
  runOutboxCommandOn(
    command,
    args,
    DATABASE_OPTIONS,
    CoreModule.databaseSettings(
      validateEnvironment(CardIssueEnvironment, process.env),
      SERVICE_NAME,
    ),
  ).catch((error: unknown) => {
    const reason = maskCredentials(error instanceof Error ? error.message : String(error));
    if (!logFatal(SERVICE_NAME, reason)) console.error(reason);
    process.exit(1);
  });
} else {
  runService({
    serviceName: SERVICE_NAME,
    environment: CardIssueEnvironment,
    appModule: () => AppModule.register(),
    configureApp,
    errorFilter: (clock, timeZone) => new CardIssueExceptionFilter(clock, timeZone),
    database: DATABASE_OPTIONS,
    migrationsDir: join(__dirname, 'database', 'migrations'),
  });
}
