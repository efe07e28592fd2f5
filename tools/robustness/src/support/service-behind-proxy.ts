import { createTestDatabase, TestDatabase, TestServiceProcess } from '@bank/shared/testing';
import { startTcpProxy, TcpProxy } from './tcp-proxy';

/** A test database, a TCP proxy in front of it and a service process connected through it. */
export interface ServiceBehindProxy {
  db: TestDatabase;
  /** cut() takes the database away from the service, restore() gives it back. */
  proxy: TcpProxy;
  child: TestServiceProcess | undefined;
}

/**
 * Made before the tests of the enclosing describe and stopped after them: a test database named
 * `label`, a TCP proxy in front of it, and the service `spawn` starts given the proxy (its URL
 * as the service's DATABASE_URL; cut first for a start without the database).
 */
export function serviceBehindProxy(
  label: string,
  spawn: (proxy: TcpProxy) => Promise<TestServiceProcess>,
): ServiceBehindProxy {
  const handle = { child: undefined } as ServiceBehindProxy;
  beforeAll(async () => {
    handle.db = await createTestDatabase(label);
    handle.proxy = await startTcpProxy(handle.db.url);
    handle.child = await spawn(handle.proxy);
  }, 120_000);
  afterAll(async () => {
    await handle.child?.stop('SIGKILL');
    await handle.proxy?.close();
    await handle.db?.drop();
  });
  return handle;
}
