import type { Pool } from 'pg';
import { DataSource, Logger as TypeOrmLogger } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { RunningTestService } from '@bank/shared/testing';
import {
  BACKGROUND_OFF,
  CardIssuesRepository,
  OutboxRepository,
  startCardIssue,
  StatusMovesService,
} from '@bank/card-issue/testing';

const ROWS = 40_000;

interface Captured {
  sql: string;
  params: unknown[];
}

/**
 * Runs work and returns the SQL statements it sent, exactly as the repository built them:
 * through TypeORM (its logger sees them) or straight on its pg pool (readQuery).
 */
async function capture(ds: DataSource, work: () => Promise<unknown>): Promise<Captured[]> {
  const captured: Captured[] = [];
  const original = ds.logger;
  const pool = (ds.driver as PostgresDriver).master as Pool;
  const poolQuery = pool.query;
  Object.assign(pool, {
    query: (sql: string, params?: unknown[]) => {
      captured.push({ sql, params: params ?? [] });
      // (the cast picks the promise overload of pg's query, not the callback one)
      return (poolQuery as (text: string, values?: unknown[]) => Promise<unknown>).call(
        pool,
        sql,
        params,
      );
    },
  });
  const spy: TypeOrmLogger = {
    logQuery: (sql, params) => void captured.push({ sql, params: params ?? [] }),
    logQueryError: () => undefined,
    logQuerySlow: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: () => undefined,
  };
  Object.assign(ds, { logger: spy });
  try {
    await work();
  } finally {
    Object.assign(ds, { logger: original });
    Object.assign(pool, { query: poolQuery });
  }
  return captured.filter((c) => !/^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK)/i.test(c.sql));
}

async function plan(ds: DataSource, statement: Captured): Promise<string> {
  const rows = await ds.query<
    {
      'QUERY PLAN': string;
    }[]
  >(`EXPLAIN ${statement.sql}`, statement.params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/**
 * The queries whose cost must follow the result, not the table: GET by client, the
 * scheduler's claim of due requests and the outbox's claim of due messages. With 40,000 stored requests (most of them in a final
 * status) and fresh statistics, their plans read the indexes, never the whole table.
 */
describe(`indexes (EXPLAIN with ${ROWS} stored requests)`, () => {
  let s: RunningTestService;

  beforeAll(async () => {
    s = await startCardIssue({
      label: 'robust_indexes',
      env: {
        ...BACKGROUND_OFF,
        SCHEDULER_CREATED_DELAY_MS: '0',
        SCHEDULER_PROCESSING_DELAY_MS: '0',
      },
    });
    await s.dataSource.query(
      `INSERT INTO card_issue_requests (request_id, status, card_owner, holder_user_id, form_factor, card_holder,
                                        status_sequence, created_at, updated_at)
       SELECT 'RCARDB01012026' || lpad(i::text, 6, '0'),
              CASE WHEN i % 20 = 0 THEN 'CREATED' WHEN i % 20 = 1 THEN 'PROCESSING'
                   WHEN i % 2 = 0 THEN 'READY' ELSE 'PLASTIC_READY' END,
              'X' || lpad((i % 4000)::text, 5, '0'),
              CASE WHEN i % 3 = 0 THEN 'Y' || lpad((i % 4000)::text, 5, '0') ELSE 'X' || lpad((i % 4000)::text, 5, '0') END,
              CASE WHEN i % 2 = 0 THEN 'VIRTUAL' ELSE 'PLASTIC' END,
              '{"nameless": false}'::jsonb, 1,
              now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval
         FROM generate_series(1, ${ROWS}) AS i`,
    );
    await s.dataSource.query(
      `INSERT INTO card_issue_status_history (request_id, status, source, at)
       SELECT request_id, status, 'api', created_at FROM card_issue_requests`,
    );
    // The outbox as a long-running service leaves it: every request's create delivered, a
    // backlog of statuses waiting behind creates that are retrying (not due), and some due.
    await s.dataSource.query(
      `INSERT INTO outbox_messages (request_id, type, payload, next_attempt_at, created_at, state, delivered_at, settled_at)
       SELECT request_id, 'operation.create', '{}'::jsonb, created_at, created_at, 'DELIVERED', created_at, created_at
         FROM card_issue_requests`,
    );
    await s.dataSource.query(
      `INSERT INTO outbox_messages (request_id, type, payload, next_attempt_at, created_at)
       SELECT 'RCARDB02012026' || lpad(i::text, 6, '0'), t, '{}'::jsonb,
              CASE WHEN i % 10 = 0 THEN now() ELSE now() + interval '1 hour' END, now()
         FROM generate_series(1, ${ROWS / 4}) AS i, unnest(ARRAY['operation.create', 'operation.status']) AS t`,
    );
    await s.dataSource.query('ANALYZE');
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  it('GET by client reads the owner and holder indexes and the history index, in one statement', async () => {
    const repository = s.app.get(CardIssuesRepository);
    let found = 0;
    const statements = await capture(s.dataSource, async () => {
      found = (await repository.findByClient('X00042', 100, 0)).length;
    });
    expect(found).toBeGreaterThan(0);
    expect(statements).toHaveLength(1); // the page with the history of its requests
    const page = await plan(s.dataSource, statements[0]);
    expect(page).toContain('ix_card_issue_requests_owner');
    expect(page).toContain('ix_card_issue_requests_holder');
    expect(page).not.toMatch(/Seq Scan on card_issue_requests/);
    expect(page).toMatch(/ix_card_issue_status_history_request|card_issue_status_history_pkey/);
    expect(page).not.toMatch(/Seq Scan on card_issue_status_history/);
  });

  it('GET by id reads the request by its key and its history by index, in one statement', async () => {
    const repository = s.app.get(CardIssuesRepository);
    let found: unknown = null;
    const statements = await capture(s.dataSource, async () => {
      found = await repository.findById('RCARDB01012026000042');
    });
    expect(found).toMatchObject({
      requestId: 'RCARDB01012026000042',
      history: [{ source: 'api' }],
    });
    expect(statements).toHaveLength(1);
    const byId = await plan(s.dataSource, statements[0]);
    expect(byId).toMatch(/Index Scan using \S*card_issue_requests\S* on card_issue_requests/);
    expect(byId).not.toMatch(/Seq Scan/);
  });

  it("the scheduler's claim of due requests reads the status index", async () => {
    const moves = s.app.get(StatusMovesService);
    let moved = 0;
    const statements = await capture(s.dataSource, async () => {
      moved = await moves.moveBatch(50);
    });
    expect(moved).toBe(50);
    expect(statements).toHaveLength(1);
    const claim = await plan(s.dataSource, statements[0]);
    // Two range scans (CREATED, PROCESSING), each stopping at the batch size, merged: no
    // bitmap of every due row and no sort of them.
    expect(claim.match(/Index Scan using ix_card_issue_requests_status/g)).toHaveLength(2);
    expect(claim).not.toMatch(/Bitmap|Seq Scan on card_issue_requests/);
  });

  it("the outbox's claim reads the due index and probes each candidate's request, whatever the backlog", async () => {
    const outbox = s.app.get(OutboxRepository);
    let claimed = 0;
    const statements = await capture(s.dataSource, async () => {
      claimed = (await outbox.claim(50, 30_000)).length;
    });
    expect(claimed).toBe(50);
    expect(statements).toHaveLength(1);
    const claim = await plan(s.dataSource, statements[0]);
    expect(claim).toContain('ix_outbox_messages_due');
    expect(claim).toContain('ix_outbox_messages_open');
    // Walks the due index in order, probing each candidate, and stops at the batch size.
    expect(claim).toMatch(
      /Limit[\s\S]*LockRows[\s\S]*Nested Loop Anti Join[\s\S]*ix_outbox_messages_due[\s\S]*ix_outbox_messages_open/,
    );
    expect(claim).not.toMatch(/Seq Scan on outbox_messages|Hash|Bitmap/);
    // The one sort orders the claimed batch itself.
    expect(claim.match(/Sort Key: .*/g)).toEqual(['Sort Key: ((claimed.id)::bigint)']);
  });
});
