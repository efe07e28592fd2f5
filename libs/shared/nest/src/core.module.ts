import { DynamicModule, ExecutionContext, Global, Module, Provider } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import { DATABASE_SETTINGS, DatabaseSettings } from '@bank/shared/database';
import { BUSINESS_TIME_ZONE, Clock, SystemClock } from '@bank/shared/calendar';
import { BaseEnvironment, validateEnvironment } from './environment';
import { loggerParams } from './logging';
import { HealthController, SERVICE_NAME } from './health/health.controller';

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

  /**
   * RATE_LIMIT requests per RATE_LIMIT_WINDOW_MS per client address on every route but the
   * health check (probes must never be throttled); 429 in the service's error shape.
   * RATE_LIMIT=0 registers nothing.
   */
  private static rateLimit(env: BaseEnvironment): {
    imports: DynamicModule[];
    providers: Provider[];
  } {
    if (!env.RATE_LIMIT) return { imports: [], providers: [] };
    return {
      imports: [
        ThrottlerModule.forRoot({
          throttlers: [{ ttl: env.RATE_LIMIT_WINDOW_MS, limit: env.RATE_LIMIT }],
          skipIf: (context: ExecutionContext) => context.getClass() === HealthController,
        }),
      ],
      providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
    };
  }

  static forRoot<T extends BaseEnvironment>(options: CoreModuleOptions<T>): DynamicModule {
    const env = validateEnvironment(options.environment, { ...process.env, ...options.overrides });
    const databaseSettings = CoreModule.databaseSettings(env, options.serviceName);
    const rateLimit = CoreModule.rateLimit(env);
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
        ...rateLimit.imports,
      ],
      providers: [
        ...rateLimit.providers,
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
