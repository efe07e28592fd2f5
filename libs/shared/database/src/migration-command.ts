import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { DatabaseModuleOptions, buildDataSourceOptions } from './database.module';
import { DatabaseSettings } from './database.options';
import { EmbeddedPostgres } from './embedded-postgres';
import { runMigrationsLocked } from './migrations';

const MIGRATION_COMMANDS = [
  'migrate',
  'migrate:revert',
  'migrate:show',
  'migrate:generate',
] as const;
export type MigrationCommand = (typeof MIGRATION_COMMANDS)[number];

/** `migrate:show` found migrations that are not applied (the command exits 1). */
export class PendingMigrationsError extends Error {
  constructor() {
    super('There are pending migrations');
  }
}

export function isMigrationCommand(value: string | undefined): value is MigrationCommand {
  return (MIGRATION_COMMANDS as readonly string[]).includes(value ?? '');
}

/**
 * Runs a migration command against the service's database (DATABASE_URL, or the
 * embedded one in its data directory): the Kubernetes migration Job and the Nx
 * migration-* targets both come here. `migrate:generate Name` writes a migration with
 * the difference between the entities and the database into `migrationsDir`.
 */
export async function runMigrationCommand(
  command: MigrationCommand,
  args: string[],
  options: Pick<DatabaseModuleOptions, 'serviceName' | 'entities' | 'migrations'>,
  settings: DatabaseSettings,
  migrationsDir: string,
  log: (line: string) => void = console.log,
): Promise<void> {
  const embedded = settings.url ? null : await EmbeddedPostgres.start(settings.embeddedDataDir, 4);
  // Migrations and their advisory lock need a session: the direct URL when there is one.
  const url = settings.directUrl ?? settings.url ?? (embedded as EmbeddedPostgres).url;
  const dataSource = await new DataSource(
    buildDataSourceOptions(url, settings, options),
  ).initialize();
  try {
    switch (command) {
      case 'migrate': {
        const applied = await runMigrationsLocked(dataSource, options.serviceName);
        log(applied.length ? `Applied: ${applied.join(', ')}` : 'No pending migrations');
        break;
      }
      case 'migrate:revert':
        await dataSource.undoLastMigration({ transaction: 'each' });
        log('Reverted the last migration');
        break;
      case 'migrate:show': {
        // Exits non-zero when some are pending, so a deployment step can wait on it.
        if (await dataSource.showMigrations()) throw new PendingMigrationsError();
        log('All migrations are applied');
        break;
      }
      case 'migrate:generate': {
        const name = args[0];
        if (!name || !/^[A-Z][A-Za-z0-9]*$/.test(name))
          throw new Error('Usage: migrate:generate PascalCaseName');
        const sql = await dataSource.driver.createSchemaBuilder().log();
        if (!sql.upQueries.length) {
          log('Entities and database agree: nothing to generate');
          break;
        }
        const timestamp = Date.now();
        const quote = (q: string) => '`' + q.replace(/`/g, '\\`') + '`';
        const body = `import { MigrationInterface, QueryRunner } from 'typeorm';

export class ${name}${timestamp} implements MigrationInterface {
  name = '${name}${timestamp}';

  async up(queryRunner: QueryRunner): Promise<void> {
${sql.upQueries.map((q) => `    await queryRunner.query(${quote(q.query)});`).join('\n')}
  }

  async down(queryRunner: QueryRunner): Promise<void> {
${sql.downQueries
  .reverse()
  .map((q) => `    await queryRunner.query(${quote(q.query)});`)
  .join('\n')}
  }
}
`;
        const file = join(migrationsDir, `${timestamp}-${name}.ts`);
        writeFileSync(file, body);
        log(`Wrote ${file}; add it to the service's migration list`);
        break;
      }
    }
  } finally {
    await dataSource.destroy();
    await embedded?.stop();
  }
}
