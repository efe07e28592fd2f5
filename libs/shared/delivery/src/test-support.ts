import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@bank/shared/testing';
import type { Queryable } from './delivery-store';

/** A queue table's test database (the lib's integration specs): its own database, one session. */
export interface QueueTestDatabase {
  db: TestDatabase;
  /** The session the statements run on. */
  client: Client;
  sql: Queryable;
  /** One more session (a second replica, a transaction holding locks). */
  connect(): Promise<Client>;
  close(): Promise<void>;
}

/** Runs statements on one pg session, as a DataSource runs them on its pool. */
export function queryableOf(client: Client): Queryable {
  return {
    query: async <T>(text: string, parameters?: unknown[]) =>
      (await client.query(text, parameters)).rows as T,
  };
}

/** A fresh test database (PostgreSQL with TEST_DATABASE_URL, else PGlite) after `ddl`. */
export async function openQueueTestDatabase(
  label: string,
  ...ddl: string[]
): Promise<QueueTestDatabase> {
  const db = await createTestDatabase(label);
  const connect = async () => {
    const session = new Client({ connectionString: db.url });
    await session.connect();
    return session;
  };
  const client = await connect();
  for (const statement of ddl) await client.query(statement);
  return {
    db,
    client,
    sql: queryableOf(client),
    connect,
    close: async () => {
      await client.end();
      await db.drop();
    },
  };
}
