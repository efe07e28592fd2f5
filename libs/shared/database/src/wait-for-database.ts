import { setTimeout as delay } from 'node:timers/promises';
import { ExponentialBackoff, IBackoff, noJitterGenerator } from 'cockatiel';
import { Client } from 'pg';
import { databaseOutage } from './postgres-error';

/** How start-up waits for its database (runService, before the application is created). */
export interface DatabaseWaitOptions {
  /** The URLs start-up connects to (DATABASE_URL and, if set, DATABASE_DIRECT_URL). */
  urls: string[];
  /** Give up after this long (DB_STARTUP_WAIT_MS); 0: one try. */
  deadlineMs: number;
  /** The service's name, as the connections' application_name. */
  applicationName: string;
  /** Ends the wait early (SIGTERM): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Each failed try, with its outage title (e.g. "Database unavailable (connection)"). */
  onFailure(error: unknown, outage: string): void;
  /** The first and the longest pause between tries (ms); defaults 250 and 5,000. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/** Why start-up stopped waiting: the deadline passed with the database still out of reach. */
export class DatabaseWaitTimeoutError extends Error {
  constructor(
    readonly waitedMs: number,
    readonly tries: number,
    readonly lastError: unknown,
  ) {
    super(
      `The database did not accept a writable connection within DB_STARTUP_WAIT_MS (${waitedMs} ms, ` +
        `${tries} tries); last failure: ${databaseOutage(lastError) ?? 'unknown'}: ${messageOf(lastError)}`,
    );
  }
}

/** A server that answers but takes no writes (a standby, a primary still in recovery). */
class InRecoveryError extends Error {
  readonly code = '25006';
  constructor() {
    super('the server is in recovery (pg_is_in_recovery() is true): it takes no writes');
  }
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** One try on one URL: a connection, and a server that takes writes. */
async function tryWritable(url: string, applicationName: string): Promise<void> {
  const client = new Client({
    connectionString: url,
    application_name: applicationName,
    connectionTimeoutMillis: 5_000,
    query_timeout: 5_000,
  });
  // A connection that ends while the try runs must not end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ recovery: boolean }>(
      'SELECT pg_is_in_recovery() AS recovery',
    );
    if (rows[0]?.recovery) throw new InRecoveryError();
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The promise, or the signal's reason as soon as it is aborted (a try in flight is left to end). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Waits until every URL accepts a connection on a server that takes writes (through a router
 * such as HAProxy a standby may answer for a moment during a failover), trying again with
 * exponential backoff (250 ms doubling to 5 s) while the failure is the database being out of
 * reach, the last try at the deadline. A failure of another kind (a wrong password, a refused TLS setting) is not waited out:
 * it is thrown at once. Resolves with the time waited.
 *
 * @throws DatabaseWaitTimeoutError once deadlineMs has passed
 */
export async function waitForDatabase(options: DatabaseWaitOptions): Promise<number> {
  const started = Date.now();
  let backoff: IBackoff<unknown> = new ExponentialBackoff({
    generator: noJitterGenerator,
    initialDelay: options.initialDelayMs ?? 250,
    maxDelay: options.maxDelayMs ?? 5_000,
  }).next();
  for (let tries = 1; ; tries++) {
    options.signal?.throwIfAborted();
    try {
      for (const url of new Set(options.urls)) {
        await abortable(tryWritable(url, options.applicationName), options.signal);
      }
      return Date.now() - started;
    } catch (error) {
      options.signal?.throwIfAborted();
      const outage = databaseOutage(error);
      if (!outage) throw error;
      options.onFailure(error, outage);
      const waited = Date.now() - started;
      if (waited >= options.deadlineMs) throw new DatabaseWaitTimeoutError(waited, tries, error);
      // The last try comes at the deadline, not a whole pause after it.
      await delay(Math.min(backoff.duration, options.deadlineMs - waited), undefined, {
        signal: options.signal,
      }).catch(() => options.signal?.throwIfAborted());
      backoff = backoff.next(undefined);
    }
  }
}
