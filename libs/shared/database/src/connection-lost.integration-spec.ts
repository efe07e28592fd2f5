import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { assertTestDatabase } from './database.options';
import { ListenedClient } from './listened-client';
import { databaseUnavailable } from './postgres-error';

/**
 * A connection ended by PostgreSQL (a failover, a restart, `pg_terminate_backend`) while a
 * transaction holds it between two statements. TypeORM's query runner hears the connection's
 * `error` event and releases itself, so the transaction's next statement fails with
 * QueryRunnerProviderAlreadyReleasedError, which names no SQLSTATE and no network code: it
 * must still read as the database being unavailable (503), not as a bug (500). PostgreSQL only
 * (the embedded PGlite has no backends to end).
 */
const url = process.env.TEST_DATABASE_URL;

(url ? describe : describe.skip)('a connection ended inside a transaction', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    assertTestDatabase(url!, { ...process.env, NODE_ENV: 'test' });
    dataSource = new DataSource({
      type: 'postgres',
      url,
      extra: { max: 2, Client: ListenedClient },
    });
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  /** Ends the backend of the transaction's connection and waits until TypeORM releases it. */
  async function endConnection(manager: EntityManager): Promise<void> {
    const [{ pid }] = await manager.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
    // The error event reaches the query runner once the server's message is read.
    const runner = manager.queryRunner!;
    const deadline = Date.now() + 10_000;
    while (!runner.isReleased && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  const failureOf = (work: (manager: EntityManager) => Promise<void>) =>
    dataSource.transaction(work).then(
      () => undefined,
      (error: unknown) => error,
    );

  it.each([
    [
      'the next statement',
      async (manager: EntityManager) => {
        await endConnection(manager);
        await manager.query('SELECT 1');
      },
      'QueryRunnerProviderAlreadyReleasedError',
    ],
    ['the COMMIT', endConnection, 'QueryRunnerAlreadyReleasedError'],
  ])('fails %s as the database being unavailable (connection)', async (_what, work, name) => {
    const failure = await failureOf(work);
    expect(failure).toBeInstanceOf(Error);
    expect({ name: (failure as Error).name, kind: databaseUnavailable(failure) }).toEqual({
      name,
      kind: 'connection',
    });
  });
});
