import { Client, ClientConfig } from 'pg';

/** Errors a client met while connecting: nothing of a statement had been sent yet. */
const connectFailures = new WeakSet<object>();

/** True when `error` ended a connection attempt (refused, reset or refused by the server then). */
export function failedWhileConnecting(error: unknown): boolean {
  return typeof error === 'object' && error !== null && connectFailures.has(error);
}

function markConnectFailure(error: unknown): void {
  if (typeof error === 'object' && error !== null) connectFailures.add(error);
}

/**
 * pg's Client with an `error` listener from its start, for every pool the services make
 * (buildDataSourceOptions passes it as the pool's `Client`). PostgreSQL ends a connection (a
 * restart, a failover, `pg_terminate_backend`: SQLSTATE 57P01) with a message that pg emits as an
 * `error` event when no query of the client is running; pg-pool listens on idle clients only, so
 * a client checked out between two statements (a query runner inside a transaction, waiting for
 * another service) had no listener, and Node ended the process. The failure still reaches the
 * code that uses the client (its next query fails and is answered as the database being
 * unavailable), and the pool drops the dead client when it is released.
 *
 * A failure while connecting is remembered (failedWhileConnecting): a connection lost then sent
 * nothing, while one lost under a statement leaves the statement's outcome unknown.
 */
export class ListenedClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => {
      // Reported by the client's next query, see above.
    });
  }

  override connect(): Promise<Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, client: Client) => void)): void;
  override connect(
    callback?: ((err: Error) => void) | ((err: null, client: Client) => void),
  ): Promise<Client> | void {
    if (callback) {
      super.connect((error: Error | null) => {
        if (error) markConnectFailure(error);
        (callback as (err: Error | null, client?: Client) => void)(error, this);
      });
      return;
    }
    return super.connect().catch((error: unknown) => {
      markConnectFailure(error);
      throw error;
    });
  }
}
