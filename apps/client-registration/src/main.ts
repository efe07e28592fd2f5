import './runtime';
import './tracing';
import 'reflect-metadata';
import { join } from 'node:path';
import { runService } from '@bank/shared/nest';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';
import { RegistrationExceptionFilter } from './errors/registration-exception.filter';
import { ClientRegistrationEnvironment, SERVICE_NAME } from './config/environment.config';
import { DATABASE_OPTIONS } from './database/database.config';

runService({
  serviceName: SERVICE_NAME,
  environment: ClientRegistrationEnvironment,
  appModule: () => AppModule.register(),
  configureApp,
  errorFilter: (clock, timeZone) => new RegistrationExceptionFilter(clock, timeZone),
  database: DATABASE_OPTIONS,
  migrationsDir: join(__dirname, 'database', 'migrations'),
});
