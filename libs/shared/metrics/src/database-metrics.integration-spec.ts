import { createConnection, createServer, Server } from 'node:net';
import { DataSource } from 'typeorm';
import {
  createTestDatabase,
  eventually,
  parseMetrics,
  TestDatabase,
  valueOf,
} from '@bank/shared/testing';
import { registerDatabaseMetrics, processTimeout } from './database-metrics';
import { Metrics } from './metrics';

/** Holds this thread for `ms` (a long garbage collection, a synchronous stretch). */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe('db_up when the process itself stalls (integration)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('metrics_ping');
    dataSource = await new DataSource({ type: 'postgres', url: db.url }).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('stays 1 when the thread is held past the ping timeout while the answer comes', async () => {
    const metrics = new Metrics({ enabled: true, host: '127.0.0.1', serviceName: 'test' });
    registerDatabaseMetrics(metrics, dataSource);
    await dataSource.query('SELECT 1'); // the connection is open: the ping only waits for its answer
    const scraped = metrics.scrape();
    // Held 2.5 s right after the ping was sent: longer than its 2 s timeout. A plain timer fires
    // first in the next turn of the loop, before the socket with the answer is read, and db_up
    // read 0 although the database answered (on the embedded PGlite, which answers from this
    // very thread, it could not answer at all during the hold-up).
    stall(2_500);
    expect(await scraped).toMatch(/^db_up 1$/m);
  });
});

describe('db_pool_waiting_clients against a real pool (integration)', () => {
  const POOL_SIZE = 3;
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('metrics_pool');
    dataSource = await new DataSource({
      type: 'postgres',
      url: db.url,
      extra: { max: POOL_SIZE },
    }).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  const sample = (text: string, name: string, labels?: Record<string, string>) =>
    valueOf(parseMetrics(text), name, labels);

  it('reads 0 on an idle pool, although the scrape itself reads the database', async () => {
    const metrics = new Metrics({ enabled: true, host: '127.0.0.1', serviceName: 'test' });
    // As the services' backlog gauges (scheduler, outbox, webhooks): registered before the pool's,
    // each reads the database at scrape time. Their queries are handed an idle connection on the
    // pool's next tick, which is no wait for a connection.
    for (const name of ['first_backlog', 'second_backlog', 'third_backlog']) {
      metrics.gauge({
        name,
        help: 'A value read from the database at scrape time',
        async collect() {
          this.set(Number((await dataSource.query('SELECT 1 AS n'))[0].n));
        },
      });
    }
    registerDatabaseMetrics(metrics, dataSource);
    // Idle connections in the pool, as on a service that has served requests.
    await Promise.all(Array.from({ length: POOL_SIZE }, () => dataSource.query('SELECT 1')));
    for (let i = 0; i < 3; i++) {
      const text = await metrics.scrape();
      expect(sample(text, 'db_pool_waiting_clients')).toBe(0);
      expect(sample(text, 'db_pool_connections', { state: 'in_use' })).toBe(0);
    }
  });

  it('counts a query waiting while every connection is held, and 0 once they are released', async () => {
    const metrics = new Metrics({ enabled: true, host: '127.0.0.1', serviceName: 'test' });
    registerDatabaseMetrics(metrics, dataSource);
    // The pool gauge alone: a whole scrape would queue its own ping behind the held connections.
    const waiting = async () =>
      sample(
        await metrics.registry.getSingleMetricAsString('db_pool_waiting_clients'),
        'db_pool_waiting_clients',
      );
    const runners = Array.from({ length: POOL_SIZE }, () => dataSource.createQueryRunner());
    let query: Promise<unknown> | undefined;
    try {
      for (const runner of runners) await runner.connect();
      expect(await waiting()).toBe(0);
      query = dataSource.query('SELECT 1');
      await eventually(async () => ((await waiting()) ?? 0) >= 1, 10_000);
    } finally {
      for (const runner of runners) await runner.release();
    }
    await query;
    expect(await waiting()).toBe(0);
  });
});

describe('processTimeout', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    // Echoes what it is sent: an answer that arrives on a socket, as a database's does.
    server = createServer((socket) => socket.on('data', (chunk) => socket.write(chunk)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const echo = async (): Promise<() => Promise<string>> => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    await new Promise((resolve) => socket.once('connect', resolve));
    return () => {
      const answer = new Promise<string>((resolve) =>
        socket.once('data', (chunk) => resolve(chunk.toString())),
      ).finally(() => socket.destroy());
      socket.write('pong');
      return answer;
    };
  };

  it('rejects when no answer comes within its time', async () => {
    const started = performance.now();
    await expect(processTimeout(200)).rejects.toThrow(/no answer in \d+ ms/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('lets an answer that came during a stall win over the timer that fired late', async () => {
    const ask = await echo();
    const raced = Promise.race([ask(), processTimeout(100)]);
    stall(300);
    await expect(raced).resolves.toBe('pong');
  });

  it('still rejects after a stall when no answer comes', async () => {
    const timeout = processTimeout(100);
    stall(300);
    await expect(timeout).rejects.toThrow(/no answer/);
  });
});
