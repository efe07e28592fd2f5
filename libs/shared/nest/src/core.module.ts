import { DynamicModule, Global, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import { DATABASE_SETTINGS, DatabaseSettings } from '@bank/shared/database';
import { MetricsModule } from '@bank/shared/metrics';
import { BUSINESS_TIME_ZONE, Clock, SystemClock } from '@bank/shared/calendar';
import { NotInFutureConstraint } from '@bank/shared/validation';
import { stopTracing } from '@bank/shared/tracing';
import { AuthModule } from '@bank/shared/auth';
import { authSettingsOf, BaseEnvironment, validateEnvironment } from '@bank/shared/config';
import { logFormat, loggerParams } from '@bank/shared/logging';
import { SERVICE_NAME } from './health/health.controller';
import { rateLimitModule } from './rate-limit';

/** Injection token of the service's validated environment (its own subclass of BaseEnvironment). */
export const ENVIRONMENT = Symbol('ENVIRONMENT');

export interface CoreModuleOptions<T extends BaseEnvironment> {
  serviceName: string;
  environment: new () => T;
  /** Values that win over process.env (tests). */
  overrides?: Record<string, string | undefined>;
}

/** The spans still buffered go out at shutdown (the last ones before a SIGTERM too). */
@Injectable()
class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
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
      directUrl: env.DATABASE_DIRECT_URL,
      embeddedDataDir: env.PGLITE_DATA_DIR ?? `.data/pglite/${serviceName}`,
      poolSize: env.DB_POOL_SIZE,
      migrationsRun: env.DB_MIGRATIONS_RUN,
      statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
    };
  }

  static forRoot<T extends BaseEnvironment>(options: CoreModuleOptions<T>): DynamicModule {
    const env = validateEnvironment(options.environment, { ...process.env, ...options.overrides });
    const databaseSettings = CoreModule.databaseSettings(env, options.serviceName);
    const rateLimit = rateLimitModule(env.RATE_LIMIT, env.RATE_LIMIT_WINDOW_MS);
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          ignoreEnvVars: true,
          load: [() => ({ ...env })],
        }),
        LoggerModule.forRoot(
          loggerParams(options.serviceName, env.LOG_LEVEL, logFormat(env), env.BASE_PATH),
        ),
        MetricsModule.forRoot({
          enabled: env.METRICS_ENABLED,
          port: env.METRICS_PORT,
          host: env.HOST,
          serviceName: options.serviceName,
        }),
        AuthModule.forRoot(authSettingsOf(env, options.serviceName)),
        ...rateLimit.imports,
      ],
      providers: [
        ...rateLimit.providers,
        TracingShutdown,
        { provide: ENVIRONMENT, useValue: env },
        { provide: SERVICE_NAME, useValue: options.serviceName },
        { provide: Clock, useClass: SystemClock },
        { provide: BUSINESS_TIME_ZONE, useValue: env.BUSINESS_TIME_ZONE },
        { provide: DATABASE_SETTINGS, useValue: databaseSettings },
        // The passport date rules of both services compare with the business date.
        NotInFutureConstraint,
      ],
      exports: [
        ENVIRONMENT,
        SERVICE_NAME,
        Clock,
        BUSINESS_TIME_ZONE,
        DATABASE_SETTINGS,
        NotInFutureConstraint,
      ],
    };
  }
}
