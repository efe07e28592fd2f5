import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';

/** A stable 63-bit advisory lock key per service. */
function lockKey(serviceName: string): string {
  return BigInt(
    '0x' + createHash('sha256').update(`migrations:${serviceName}`).digest('hex').slice(0, 15),
  ).toString();
}

/**
 * Runs pending migrations under a PostgreSQL advisory lock, so replicas that start at
 * the same time run them once, one after another, instead of racing.
 */
export async function runMigrationsLocked(
  dataSource: DataSource,
  serviceName: string,
): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const key = lockKey(serviceName);
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [key]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
    await runner.release();
  }
}

/**
 * The statements TypeORM would generate to bring the database to the entities: empty when
 * the entities declare everything the migrations created (what `migrate:generate` writes).
 */
export async function schemaDrift(dataSource: DataSource): Promise<string[]> {
  const sql = await dataSource.driver.createSchemaBuilder().log();
  return sql.upQueries.map((query) => query.query);
}
