import { Client, ClientConfig } from 'pg';

/**
 * pg's Client with an `error` listener from its start, for every pool the services make
 * (buildDataSourceOptions passes it as the pool's `Client`). PostgreSQL ends a connection (a
 * restart, a failover, `pg_terminate_backend`: SQLSTATE 57P01) with a message that pg emits as an
 * `error` event when no query of the client is running; pg-pool listens on idle clients only, so
 * a client checked out between two statements (a query runner inside a transaction, waiting for
 * another service) had no listener, and Node ended the process. The failure still reaches the
 * code that uses the client (its next query fails and is answered as the database being
 * unavailable), and the pool drops the dead client when it is released.
 */
export class ListenedClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => {
      // Reported by the client's next query, see above.
    });
  }
}
