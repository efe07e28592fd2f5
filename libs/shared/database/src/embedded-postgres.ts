import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * An embedded PostgreSQL for machines without a database server: PGlite (PostgreSQL
 * compiled to WebAssembly) in this process, exposed on a loopback TCP port so that
 * TypeORM's ordinary `postgres` driver and `pg` talk to it exactly as to a real server.
 *
 * PGlite is a single backend: the socket server multiplexes connections but runs one
 * transaction at a time, so code inside a transaction must use that transaction's
 * manager (another connection would wait for it forever).
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
  ) {}

  /**
   * @param dataDir a directory (persistent) or `memory://` (throw-away)
   * @param maxConnections at least twice the client pool size (the server queues beyond it)
   */
  static async start(
    dataDir: string,
    maxConnections: number,
    database = 'postgres',
  ): Promise<EmbeddedPostgres> {
    if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
    const db = await PGlite.create(dataDir);
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
    await server.start();
    const address = server.getServerConn(); // "127.0.0.1:<port>"
    return new EmbeddedPostgres(db, server, `postgres://postgres@${address}/${database}`);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    if (!this.db.closed) await this.db.close();
  }
}
