import { createServer } from 'node:net';
import { DatabaseWaitTimeoutError, waitForDatabase } from './wait-for-database';

/** A loopback port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const url = process.env.TEST_DATABASE_URL;
const describeOnPostgres = url ? describe : describe.skip;

describeOnPostgres('waitForDatabase', () => {
  it('resolves once the database takes writes', async () => {
    const failures: string[] = [];
    await waitForDatabase({
      urls: [url as string, url as string],
      deadlineMs: 5_000,
      applicationName: 'wait-test',
      onFailure: (_error, outage) => failures.push(outage),
    });
    expect(failures).toEqual([]);
  });

  it('tries again with backoff while the server is out of reach, then gives up', async () => {
    const down = new URL(url as string);
    down.port = String(await closedPort());
    const failures: string[] = [];
    const error = await waitForDatabase({
      urls: [down.toString()],
      deadlineMs: 400,
      initialDelayMs: 50,
      applicationName: 'wait-test',
      onFailure: (_error, outage) => failures.push(outage),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseWaitTimeoutError);
    expect((error as Error).message).toMatch(
      /^The database did not accept a writable connection within DB_STARTUP_WAIT_MS \(\d+ ms, \d+ tries\); last failure: Database unavailable \(connection\): connect ECONNREFUSED/,
    );
    // 50, 100, 200 ms and the last try at the deadline: a few tries, not a busy loop.
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.length).toBeLessThanOrEqual(6);
    expect(new Set(failures)).toEqual(new Set(['Database unavailable (connection)']));
  });

  it('does not wait out a failure that is no outage (an unknown role)', async () => {
    const wrong = new URL(url as string);
    wrong.username = 'no_such_role_for_wait_test';
    const failures: string[] = [];
    const error = await waitForDatabase({
      urls: [wrong.toString()],
      deadlineMs: 60_000,
      applicationName: 'wait-test',
      onFailure: (_error, outage) => failures.push(outage),
    }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(DatabaseWaitTimeoutError);
    expect((error as { code?: string }).code).toBe('28000');
    expect(failures).toEqual([]);
  });

  it('ends at once when its signal is aborted', async () => {
    const down = new URL(url as string);
    down.port = String(await closedPort());
    const stop = new AbortController();
    const waiting = waitForDatabase({
      urls: [down.toString()],
      deadlineMs: 60_000,
      applicationName: 'wait-test',
      signal: stop.signal,
      onFailure: () => stop.abort('SIGTERM'),
    });
    await expect(waiting).rejects.toBe('SIGTERM');
  });
});
