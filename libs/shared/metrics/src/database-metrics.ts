import { DataSource } from 'typeorm';
import { Metrics, sampled } from './metrics';

/** The counters node-postgres keeps on its pool (pg.Pool). */
interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max: number };
}

/**
 * Callers that wait for a connection: those the pool cannot serve now. pg-pool queues every
 * `connect()` made while it holds an idle connection and hands them out on its next tick, so
 * its `waitingCount` also counts callers an idle connection (or a free slot, for which it opens
 * a new one) is about to serve. A scrape is such a moment: the gauges that read the database
 * (the backlogs) have just asked for a connection, and an idle service read as waiting for one.
 */
function waitingClients(pool: PgPool): number {
  const free = pool.idleCount + Math.max(0, pool.options.max - pool.totalCount);
  return Math.max(0, pool.waitingCount - free);
}

/** How long a database ping answer is reused (several scrapers, one ping). */
const PING_MAX_AGE_MS = 5_000;
const PING_TIMEOUT_MS = 2_000;

/**
 * The connection pool TypeORM's PostgreSQL driver holds (connections in use, idle, callers
 * waiting for one, the maximum), read from the pool's own counters at scrape time, and
 * whether the database answers (one `SELECT 1` per scrape interval, never per request).
 */
export function registerDatabaseMetrics(metrics: Metrics, dataSource: DataSource): void {
  const pool = () => (dataSource.driver as unknown as { master?: PgPool }).master;
  metrics.gauge({
    name: 'db_pool_connections',
    help: 'Connections of the database pool, by state (in_use, idle)',
    labelNames: ['state'],
    collect() {
      const p = pool();
      this.set({ state: 'in_use' }, p ? p.totalCount - p.idleCount : NaN);
      this.set({ state: 'idle' }, p ? p.idleCount : NaN);
    },
  });
  metrics.gauge({
    name: 'db_pool_waiting_clients',
    help: 'Queries waiting for a free connection of the pool (none idle, none to open)',
    collect() {
      const p = pool();
      this.set(p ? waitingClients(p) : NaN);
    },
  });
  metrics.gauge({
    name: 'db_pool_max_connections',
    help: 'Size of the database pool (DB_POOL_SIZE)',
    collect() {
      this.set(pool()?.options.max ?? NaN);
    },
  });
  const ping = sampled(async () => {
    await Promise.race([dataSource.query('SELECT 1'), processTimeout(PING_TIMEOUT_MS)]);
    return true;
  }, PING_MAX_AGE_MS);
  metrics.gauge({
    name: 'db_up',
    help: '1 when the database answered a ping within 2 s at the last scrape, else 0',
    async collect() {
      this.set(dataSource.isInitialized && (await ping()) ? 1 : 0);
    },
  });
}

/**
 * Rejects once `ms` have passed in which this process could have read the answer. A timer that
 * fires late, because the event loop was held up (a long garbage collection, a synchronous
 * stretch, an embedded database working in this thread), is armed again for the time it lost:
 * the answer may be waiting unread behind the hold-up, and the timers run before the sockets in a
 * turn of the loop, so a plain timer would blame the database for the process's own stall. At
 * most `ms` more in all, so a database that does not answer is still down within 2 x `ms`.
 */
export function processTimeout(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    const started = performance.now();
    let lost = 0;
    const arm = (delay: number) => {
      const due = performance.now() + delay;
      setTimeout(() => {
        const late = performance.now() - due;
        if (late > 50 && lost < ms) {
          const extra = Math.min(late, ms - lost);
          lost += extra;
          arm(extra);
          return;
        }
        reject(new Error(`no answer in ${Math.round(performance.now() - started)} ms`));
      }, delay).unref();
    };
    arm(ms);
  });
}
