import { URL } from 'node:url';

export interface DatabaseSettings {
  /** PostgreSQL URL; absent means the embedded database. */
  url?: string;
  /**
   * Direct (session) URL for migrations and their advisory lock, when `url` goes through a
   * transaction-pooling PgBouncer; absent: `url` serves both.
   */
  directUrl?: string;
  /** Where the embedded database keeps its files. */
  embeddedDataDir: string;
  poolSize: number;
  /** Run pending migrations when the service starts. */
  migrationsRun: boolean;
  /** ms a statement may run before PostgreSQL cancels it. */
  statementTimeoutMs: number;
}

/** Name of the database a URL points at. */
export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/**
 * Tests must never touch a database that is not marked as a test one: under Jest
 * (NODE_ENV=test) the database name has to contain "test".
 */
export function assertTestDatabase(url: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_ENV !== 'test') return;
  const name = databaseName(url);
  if (!/test/i.test(name)) {
    throw new Error(
      `Refusing to run tests against database "${name}": its name must contain "test"`,
    );
  }
}
