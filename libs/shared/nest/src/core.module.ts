import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import { DATABASE_SETTINGS, DatabaseSettings } from '@bank/shared/database';
import { BUSINESS_TIME_ZONE, Clock, SystemClock } from './clock';
import { BaseEnvironment, validateEnvironment } from './environment';
import { loggerParams } from './logging';
import { SERVICE_NAME } from './health.controller';

/** Injection token of the service's validated environment (its own subclass of BaseEnvironment). */
export const ENVIRONMENT = Symbol('ENVIRONMENT');

export interface CoreModuleOptions<T extends BaseEnvironment> {
  serviceName: string;
  environment: new () => T;
  /** Values that win over process.env (tests). */
  overrides?: Record<string, string | undefined>;
}

/**
 * What every service needs before its features: validated configuration, structured
 * logs, the clock, the business time zone and the database settings. Global, so
 * feature modules inject these without importing anything.
 */
@Global()
@Module({})
export class CoreModule {
  static databaseSettings(env: BaseEnvironment, serviceName: string): DatabaseSettings {
    return {
      url: env.DATABASE_URL,
      embeddedDataDir: env.PGLITE_DATA_DIR ?? `.data/pglite/${serviceName}`,
      poolSize: env.DB_POOL_SIZE,
      migrationsRun: env.DB_MIGRATIONS_RUN,
      statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
    };
  }

  static forRoot<T extends BaseEnvironment>(options: CoreModuleOptions<T>): DynamicModule {
    const env = validateEnvironment(options.environment, { ...process.env, ...options.overrides });
    const databaseSettings = CoreModule.databaseSettings(env, options.serviceName);
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          ignoreEnvVars: true,
          load: [() => ({ ...env })],
        }),
        LoggerModule.forRoot(loggerParams(options.serviceName, env.LOG_LEVEL)),
      ],
      providers: [
        { provide: ENVIRONMENT, useValue: env },
        { provide: SERVICE_NAME, useValue: options.serviceName },
        { provide: Clock, useClass: SystemClock },
        { provide: BUSINESS_TIME_ZONE, useValue: env.BUSINESS_TIME_ZONE },
        { provide: DATABASE_SETTINGS, useValue: databaseSettings },
      ],
      exports: [ENVIRONMENT, SERVICE_NAME, Clock, BUSINESS_TIME_ZONE, DATABASE_SETTINGS],
    };
  }
}
