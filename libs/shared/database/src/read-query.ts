import type { Pool } from 'pg';
import { DataSource, EntityTarget, ObjectLiteral, QueryFailedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Runs one read statement straight on the pg pool TypeORM holds, without a TypeORM query
 * runner: for the hot read paths, where the runner's bookkeeping is a tenth of a request's
 * CPU (docs/decisions/0006-hot-reads-in-plain-sql.md). Same pool, same settings (statement timeout, pool size);
 * failures come back as TypeORM's QueryFailedError, as from dataSource.query.
 */
export async function readQuery<T>(
  dataSource: DataSource,
  sql: string,
  parameters: unknown[],
): Promise<T[]> {
  const pool = (dataSource.driver as PostgresDriver).master as Pool;
  try {
    return (await pool.query(sql, parameters)).rows as T[];
  } catch (error) {
    throw error instanceof Error ? new QueryFailedError(sql, parameters, error) : error;
  }
}

/**
 * The select list that reads an entity's columns under its property names (`"first_name" AS
 * "firstName"`), taken from TypeORM's metadata so it follows the entity; for readQuery.
 * A `date` column is read as its yyyy-MM-dd text, the value TypeORM hydrates it to (pg alone
 * would make it a Date at local midnight).
 */
export function entityColumns(dataSource: DataSource, entity: EntityTarget<ObjectLiteral>): string {
  return dataSource
    .getMetadata(entity)
    .columns.map(
      (column) =>
        `"${column.databaseName}"${column.type === 'date' ? '::text' : ''} AS "${column.propertyName}"`,
    )
    .join(', ');
}
