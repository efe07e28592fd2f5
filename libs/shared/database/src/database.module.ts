import {
  DynamicModule,
  Inject,
  Logger,
  Module,
  OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions, MixedList, EntitySchema } from 'typeorm';
import { DatabaseSettings, assertTestDatabase } from './database.options';
import { EmbeddedPostgres } from './embedded-postgres';
import { ListenedClient } from './listened-client';
import { runMigrationsLocked } from './migrations';

export const DATABASE_SETTINGS = Symbol('DATABASE_SETTINGS');
const EMBEDDED_POSTGRES = Symbol('EMBEDDED_POSTGRES');

export interface DatabaseModuleOptions {
  serviceName: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: Function[];
}

/** TypeORM options shared by the running service, the migration CLI and the tests. */
export function buildDataSourceOptions(
  url: string,
  settings: Pick<DatabaseSettings, 'poolSize' | 'statementTimeoutMs' | 'directUrl'>,
  options: Pick<DatabaseModuleOptions, 'entities' | 'migrations' | 'serviceName'>,
): DataSourceOptions {
  // Behind a transaction-pooling PgBouncer (a direct URL is configured besides, and this is
  // not it) no session parameter is sent: PgBouncer refuses unknown startup parameters, and a
  // session setting would leak between clients. The statement timeout is then the role's
  // (`ALTER ROLE ... SET statement_timeout`, README "PgBouncer"). pg sends unnamed statements
  // only (nothing here names a query), which transaction pooling allows.
  const pooled = settings.directUrl !== undefined && settings.directUrl !== url;
  return {
    type: 'postgres',
    url,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    migrationsRun: false,
    // gen_random_uuid() is built into PostgreSQL 13+ (and PGlite); no extension to install.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    applicationName: options.serviceName,
    extra: {
      max: settings.poolSize,
      connectionTimeoutMillis: 5_000,
      ...(pooled ? {} : { statement_timeout: settings.statementTimeoutMs }),
      keepAlive: true,
      // A connection PostgreSQL ends while it is checked out must not end the process.
      Client: ListenedClient,
    },
  };
}

/**
 * Migrations hold a session-level advisory lock across several transactions: through a
 * transaction-pooling PgBouncer those could run on different server connections, so with a
 * direct URL they get a connection of their own on it.
 */
async function runMigrationsOn(
  settings: DatabaseSettings,
  dataSource: DataSource,
  options: Pick<DatabaseModuleOptions, 'entities' | 'migrations' | 'serviceName'>,
): Promise<string[]> {
  if (!settings.directUrl) return runMigrationsLocked(dataSource, options.serviceName);
  const direct = await new DataSource(
    buildDataSourceOptions(settings.directUrl, { ...settings, poolSize: 2 }, options),
  ).initialize();
  try {
    return await runMigrationsLocked(direct, options.serviceName);
  } finally {
    await direct.destroy();
  }
}

/**
 * TypeORM on the service's PostgreSQL, or on the embedded one when no URL is configured.
 * Expects DATABASE_SETTINGS from a global module (CoreModule). Migrations run at start-up
 * under an advisory lock unless turned off.
 */
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseModule.name);

  constructor(
    private readonly moduleRef: ModuleRef,
    @Optional() @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
  ) {}

  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    const embeddedProvider = {
      provide: EMBEDDED_POSTGRES,
      inject: [DATABASE_SETTINGS],
      useFactory: async (settings: DatabaseSettings) =>
        settings.url
          ? null
          : EmbeddedPostgres.start(settings.embeddedDataDir, settings.poolSize * 2 + 2),
    };
    const embeddedModule: DynamicModule = {
      module: class EmbeddedPostgresModule {},
      providers: [embeddedProvider],
      exports: [EMBEDDED_POSTGRES],
    };
    return {
      module: DatabaseModule,
      imports: [
        embeddedModule,
        TypeOrmModule.forRootAsync({
          imports: [embeddedModule],
          inject: [DATABASE_SETTINGS, EMBEDDED_POSTGRES],
          useFactory: (settings: DatabaseSettings, embedded: EmbeddedPostgres | null) => {
            const url = settings.url ?? (embedded as EmbeddedPostgres).url;
            assertTestDatabase(url);
            return {
              ...buildDataSourceOptions(url, settings, options),
              retryAttempts: 3,
              retryDelay: 1_000,
            };
          },
          dataSourceFactory: async (dataSourceOptions) => {
            const dataSource = await new DataSource(
              dataSourceOptions as DataSourceOptions,
            ).initialize();
            return dataSource;
          },
        }),
        {
          module: class MigrationsOnStartModule {},
          providers: [
            {
              provide: Symbol('MIGRATIONS_ON_START'),
              inject: [DATABASE_SETTINGS, getDataSourceToken()],
              useFactory: async (settings: DatabaseSettings, dataSource: DataSource) => {
                if (!settings.migrationsRun) return false;
                const applied = await runMigrationsOn(settings, dataSource, options);
                if (applied.length) new Logger('Migrations').log(`Applied ${applied.join(', ')}`);
                return true;
              },
            },
          ],
        },
      ],
      exports: [TypeOrmModule],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    // TypeORM must let go of its connections before the embedded server goes away.
    const dataSource = this.moduleRef.get<DataSource>(getDataSourceToken(), { strict: false });
    if (dataSource?.isInitialized) await dataSource.destroy();
    await this.embedded?.stop();
    this.logger.log('Database closed');
  }
}
