import 'reflect-metadata';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { isMigrationCommand, runMigrationCommand } from '@bank/shared/database';
import { CoreModule, createHttpAdapter, listen, validateEnvironment } from '@bank/shared/nest';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';
import { CardIssueEnvironment, SERVICE_NAME } from './config/environment';
import { DATABASE_OPTIONS } from './database/database.config';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(),
    createHttpAdapter(),
    {
      bufferLogs: true,
    },
  );
  configureApp(app);
  await listen(app);
}

async function migrate(
  command: Parameters<typeof runMigrationCommand>[0],
  args: string[],
): Promise<void> {
  const env = validateEnvironment(CardIssueEnvironment, process.env);
  await runMigrationCommand(
    command,
    args,
    DATABASE_OPTIONS,
    CoreModule.databaseSettings(env, SERVICE_NAME),
    join(__dirname, 'database', 'migrations'),
  );
}

const [command, ...args] = process.argv.slice(2);
const run = isMigrationCommand(command) ? migrate(command, args) : bootstrap();
run.catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
