import { mkdirSync } from 'node:fs';
import { AddressInfo, Server, createServer } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import { ProtocolQueue } from './protocol-queue';

/**
 * PGlite is a development dependency: the production image (`npm ci --omit=dev`) lacks it, so
 * it is loaded only when the embedded database is started, never by importing this file.
 */
async function loadPglite(): Promise<{
  PGlite: typeof PGlite;
  PGLiteSocketHandler: typeof PGLiteSocketHandler;
}> {
  try {
    const [{ PGlite }, { PGLiteSocketHandler }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite-socket'),
    ]);
    return { PGlite, PGLiteSocketHandler };
  } catch (error) {
    throw new Error(
      'The embedded database (PGlite, a development dependency) is not installed here: set DATABASE_URL',
      { cause: error },
    );
  }
}

/**
 * An embedded PostgreSQL for machines without a database server: PGlite (PostgreSQL
 * compiled to WebAssembly) in this process, exposed on a loopback TCP port so that
 * TypeORM's ordinary `postgres` driver and `pg` talk to it exactly as to a real server.
 *
 * PGlite is a single backend: connections are multiplexed onto it (pglite-socket's
 * connection handler, fed through ProtocolQueue) and it runs one transaction at a time, so
 * code inside a transaction must use that transaction's manager (another connection would
 * wait for it forever).
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: Server,
    private readonly handlers: Set<PGLiteSocketHandler>,
    readonly url: string,
  ) {}

  /**
   * @param dataDir a directory (persistent) or `memory://` (throw-away)
   * @param maxConnections at least twice the client pool size (the server queues beyond it)
   * @param template a cluster dumped by {@link EmbeddedPostgres.dumpFreshCluster}: loaded
   *   instead of running initdb (a fraction of a second against several seconds)
   */
  static async start(
    dataDir: string,
    maxConnections: number,
    database = 'postgres',
    template?: Blob,
  ): Promise<EmbeddedPostgres> {
    const { PGlite, PGLiteSocketHandler } = await loadPglite();
    if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
    const db = await PGlite.create(dataDir, template ? { loadDataDir: template } : {});
    const queue = new ProtocolQueue(db);
    const handlers = new Set<PGLiteSocketHandler>();
    const server = createServer((socket) => {
      if (handlers.size >= maxConnections) {
        socket.end();
        return;
      }
      // The handler's type names pglite-socket's own queue; ours has the same interface.
      const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
      handlers.add(handler);
      const forget = () => handlers.delete(handler);
      handler.addEventListener('close', forget);
      handler.addEventListener('error', forget);
      handler.attach(socket).catch(() => {
        forget();
        socket.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = server.address() as AddressInfo;
    return new EmbeddedPostgres(
      db,
      server,
      handlers,
      `postgres://postgres@127.0.0.1:${port}/${database}`,
    );
  }

  /** A freshly initialised, empty cluster as a tarball, for `start`'s `template`. */
  static async dumpFreshCluster(): Promise<Blob> {
    const { PGlite } = await loadPglite();
    const db = await PGlite.create('memory://');
    try {
      return await db.dumpDataDir('none');
    } finally {
      await db.close();
    }
  }

  async stop(): Promise<void> {
    for (const handler of this.handlers) await handler.detach(true);
    this.handlers.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (!this.db.closed) await this.db.close();
  }
}
