import { DataSource } from 'typeorm';
import { buildDataSourceOptions, runMigrationsLocked, schemaDrift } from '@bank/shared/database';
import { createTestDatabase, TestDatabase } from '@bank/shared/testing';
import { DATABASE_OPTIONS } from './database.config';

// The entities declare every table, column, constraint, CHECK, index and foreign key the
// migrations create, so `nx run client-registration:migration-generate` on a migrated database writes
// nothing (a drift would make the next generated migration drop them).
describe('client-registration schema: migrations and entities agree (integration)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('client_registration_drift');
    dataSource = await new DataSource(
      buildDataSourceOptions(db.url, { poolSize: 2, statementTimeoutMs: 10_000 }, DATABASE_OPTIONS),
    ).initialize();
    await runMigrationsLocked(dataSource, DATABASE_OPTIONS.serviceName);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('generating a migration on the migrated database yields no statement', async () => {
    expect(await schemaDrift(dataSource)).toEqual([]);
  });
});
