import { DataSource } from 'typeorm';
import { buildDataSourceOptions, runMigrationsLocked } from '@bank/shared/database';
import { DATABASE_OPTIONS } from './database.config';

type Migrations = (typeof DATABASE_OPTIONS)['migrations'];

/** The service's migrations before `migration`, the one a data-migration test looks at. */
export function migrationsBefore(migration: Migrations[number]): Migrations {
  const index = DATABASE_OPTIONS.migrations.indexOf(migration);
  if (index < 0) throw new Error(`${migration.name} is not one of the service's migrations`);
  return DATABASE_OPTIONS.migrations.slice(0, index);
}

/** A data source on `url` that has run `migrations` (all of the service's by default); destroy it. */
export async function migratedDataSource(
  url: string,
  migrations: Migrations = DATABASE_OPTIONS.migrations,
): Promise<DataSource> {
  const dataSource = await new DataSource(
    buildDataSourceOptions(
      url,
      { poolSize: 2, statementTimeoutMs: 10_000 },
      { ...DATABASE_OPTIONS, migrations },
    ),
  ).initialize();
  try {
    await runMigrationsLocked(dataSource, DATABASE_OPTIONS.serviceName);
    return dataSource;
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
}
