import type { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryStore, Queryable } from './delivery-store';
import { deliveryTableSql } from './delivery-table.sql';
import { openQueueTestDatabase, QueueTestDatabase } from './test-support';

const TABLE = deliveryTableSql({ table: 'test_queue', lane: ['topic'], settled: ['DELIVERED'] });
const CLAIM_SQL = TABLE.claimDue({
  limit: '$1',
  leaseMs: '$2',
  returning: `q.id::text AS id, q.topic, q.attempts`,
});
const DELIVERED_SQL = TABLE.markDelivered({ id: '$1', onlyPending: true });
const FAILED_SQL = TABLE.settleFailure({
  id: '$1',
  delayMs: '$2',
  maxAttempts: '$3',
  set: 'last_error = $4',
  onlyPending: true,
});

/**
 * The mechanism as a queue's service puts it together: a DeliveryQueue whose step claims a batch
 * from its table, sends each row (here to a receiver that refuses one topic) and settles it.
 */
describe('DeliveryQueue on a queue table (integration)', () => {
  let t: QueueTestDatabase;
  let sql: Queryable;
  const sent: string[] = [];
  const errors: string[] = [];
  const MAX_ATTEMPTS = 3;

  const queue = () => {
    const store = new DeliveryStore(sql, TABLE);
    const logger = {
      error: (_detail: unknown, message: string) => errors.push(message),
      log: () => undefined,
    } as unknown as Logger;
    const q: DeliveryQueue = new DeliveryQueue(new SchedulerRegistry(), logger, {
      name: 'test',
      enabled: true,
      tickMs: 60_000,
      // No wait between attempts: a refused row is due again at once, within the round.
      retry: { baseMs: 0, maxMs: 0, jitter: false },
      store,
      retentionHours: 0,
      purgeBatchSize: 2,
      lines: { roundFailed: 'round failed', purged: 'purged', purgeFailed: 'purge failed' },
      step: async () => {
        const batch = await sql.query<{ id: string; topic: string; attempts: number }[]>(
          CLAIM_SQL,
          [10, 60_000],
        );
        for (const row of batch) {
          sent.push(`${row.topic}#${row.attempts}`);
          if (row.topic === 'refused') {
            await sql.query(FAILED_SQL, [row.id, q.retryDelayMs(row.attempts), MAX_ATTEMPTS, 'no']);
          } else {
            await sql.query(DELIVERED_SQL, [row.id]);
          }
        }
        return batch.length > 0;
      },
    });
    return { q, store };
  };
  const states = async () =>
    sql.query<{ topic: string; state: string }[]>(
      `SELECT topic, state FROM test_queue ORDER BY id`,
    );

  beforeAll(async () => {
    t = await openQueueTestDatabase(
      'delivery_queue',
      `CREATE TABLE test_queue (
        id bigserial PRIMARY KEY, topic text NOT NULL, state varchar(12) NOT NULL DEFAULT 'PENDING',
        attempts int NOT NULL DEFAULT 0, next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz NULL, last_error text NULL, settled_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now())`,
    );
    sql = t.sql;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('delivers in rounds, retries, dead-letters after the last attempt, holds the lane, and purges what settled', async () => {
    await sql.query(
      `INSERT INTO test_queue (topic) VALUES ('a'), ('refused'), ('b'), ('refused'), ('a')`,
    );
    const { q, store } = queue();
    await Promise.all([q.run(), q.run()]); // two callers, one round
    // Each topic in order; the refused one tried MAX_ATTEMPTS times, its second row never.
    expect(sent.filter((s) => s.startsWith('a'))).toEqual(['a#1', 'a#1']);
    expect(sent.filter((s) => s.startsWith('refused'))).toEqual([
      'refused#1',
      'refused#2',
      'refused#3',
    ]);
    expect(await states()).toEqual([
      { topic: 'a', state: 'DELIVERED' },
      { topic: 'refused', state: 'DEAD' },
      { topic: 'b', state: 'DELIVERED' },
      { topic: 'refused', state: 'PENDING' },
      { topic: 'a', state: 'DELIVERED' },
    ]);
    expect(await store.backlog(100)).toMatchObject({ pending: 1, dead: 1 });
    expect(errors).toEqual([]);

    expect(await q.purgeSettled()).toBe(3); // batches of 2: 2, then 1
    expect((await states()).map((row) => row.state)).toEqual(['DEAD', 'PENDING']);
    await q.stop();
  });
});
