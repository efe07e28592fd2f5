import { DeliveryStore, Queryable } from './delivery-store';
import { ClaimOptions, deliveryTableSql } from './delivery-table.sql';
import { openQueueTestDatabase, queryableOf, QueueTestDatabase } from './test-support';

/** A queue table with a two-column lane (tenant, stream) and SUPERSEDED among its final states. */
const TABLE = deliveryTableSql({
  table: 'test_deliveries',
  lane: ['tenant', 'stream'],
  settled: ['DELIVERED', 'SUPERSEDED'],
});

const RETURNING = `q.id::text AS id, q.tenant, q.stream, q.attempts, q.kind`;
const CLAIM: ClaimOptions = { limit: '$1', leaseMs: '$2', returning: RETURNING };
const CLAIM_SQL = TABLE.claimDue(CLAIM);
const MARK_DELIVERED_SQL = TABLE.markDelivered({ id: '$1', onlyPending: false });
/** $1 id, $2 delay ms, $3 error, $4 max attempts; a 'status' row is moot once a newer one waits. */
const settleSql = (onlyPending: boolean) =>
  TABLE.settleFailure({
    id: '$1',
    delayMs: '$2',
    maxAttempts: '$4',
    set: 'last_error = $3',
    supersededWhen: `q.kind = 'status' AND EXISTS (SELECT 1 FROM test_deliveries n
       WHERE n.tenant = q.tenant AND n.stream = q.stream AND n.state = 'PENDING' AND n.id > q.id AND n.kind = 'status')`,
    onlyPending,
  });
const REVIVE_ALL_SQL = `WITH dead AS (
   SELECT id, tenant, stream FROM test_deliveries WHERE state = 'DEAD'
 ), revived AS (
   ${TABLE.reviveDead('dead')}
 )
 SELECT count(*)::int AS n FROM dead`;

interface Claimed {
  id: string;
  tenant: string;
  stream: string;
  attempts: number;
  kind: string;
}

interface Row {
  id: string;
  state: string;
  attempts: number;
  due: 'now' | 'later' | 'never';
  leased: boolean;
  settled: boolean;
  lastError: string | null;
}

describe('delivery table statements (integration)', () => {
  let t: QueueTestDatabase;
  let sql: Queryable;

  /** Adds a row of lane (tenant, stream), due now unless `dueInMs` says; returns its id. */
  const add = async (tenant: string, stream: string, kind = 'create', dueInMs = 0) => {
    const [row] = await sql.query<{ id: string }[]>(
      `INSERT INTO test_deliveries (tenant, stream, kind, next_attempt_at, created_at)
       VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond', now()) RETURNING id::text AS id`,
      [tenant, stream, kind, dueInMs],
    );
    return row.id;
  };
  const claim = (limit = 100, leaseMs = 60_000, runner: Queryable = sql) =>
    runner.query<Claimed[]>(CLAIM_SQL, [limit, leaseMs]);
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
  const fail = async (id: string, delayMs: number, maxAttempts: number, onlyPending = false) => {
    const rows = await sql.query<{ state: string }[]>(settleSql(onlyPending), [
      id,
      delayMs,
      'refused',
      maxAttempts,
    ]);
    return rows[0]?.state ?? null;
  };
  const row = async (id: string): Promise<Row> => {
    const [found] = await sql.query<Row[]>(
      `SELECT id::text AS id, state, attempts, last_error AS "lastError",
              CASE WHEN next_attempt_at = 'infinity' THEN 'never'
                   WHEN next_attempt_at <= now() THEN 'now' ELSE 'later' END AS due,
              coalesce(locked_until > now(), false) AS leased, settled_at IS NOT NULL AS settled
       FROM test_deliveries WHERE id = $1`,
      [id],
    );
    return found;
  };
  /** Lets a row's lease run out and its backoff end, as time would. */
  const expire = (id: string) =>
    sql.query(
      `UPDATE test_deliveries SET locked_until = now() - interval '1 second',
         next_attempt_at = least(next_attempt_at, now()) WHERE id = $1`,
      [id],
    );

  beforeAll(async () => {
    t = await openQueueTestDatabase(
      'delivery_lib',
      `CREATE TABLE test_deliveries (
        id bigserial PRIMARY KEY, tenant text NOT NULL, stream text NOT NULL,
        kind text NOT NULL DEFAULT 'create', state varchar(12) NOT NULL DEFAULT 'PENDING',
        attempts int NOT NULL DEFAULT 0, next_attempt_at timestamptz NOT NULL,
        locked_until timestamptz NULL, last_error text NULL, settled_at timestamptz NULL,
        created_at timestamptz NOT NULL)`,
      `CREATE INDEX ix_test_deliveries_due ON test_deliveries (next_attempt_at, id) WHERE state = 'PENDING'`,
      `CREATE INDEX ix_test_deliveries_due_by_tenant ON test_deliveries (tenant, next_attempt_at, id) WHERE state = 'PENDING'`,
      `CREATE INDEX ix_test_deliveries_open ON test_deliveries (tenant, stream, id) WHERE state IN ('PENDING','DEAD')`,
      `CREATE INDEX ix_test_deliveries_settled ON test_deliveries (settled_at) WHERE state IN ('DELIVERED','SUPERSEDED')`,
      `CREATE TABLE tenants (name text PRIMARY KEY, label text NOT NULL)`,
    );
    sql = t.sql;
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(async () => {
    await sql.query('TRUNCATE test_deliveries, tenants');
  });

  it('claims the heads of their lanes that are due, oldest due first, up to the limit, under a lease', async () => {
    const a1 = await add('a', '1');
    const a1Next = await add('a', '1');
    const a2 = await add('a', '2');
    await add('b', '1', 'create', 3_600_000); // not due
    const b2 = await add('b', '2');

    expect(ids(await claim(2))).toEqual([a1, a2]);
    expect(await claim(1)).toEqual([
      { id: b2, tenant: 'b', stream: '2', attempts: 1, kind: 'create' },
    ]);
    // The leased heads are not claimed again, and a1Next waits behind its head.
    expect(await claim()).toEqual([]);
    expect(await row(a1)).toMatchObject({ state: 'PENDING', attempts: 1, leased: true });

    // A lease that ran out (its worker died) makes the row claimable again: the next attempt.
    await expire(a1);
    expect(await claim()).toMatchObject([{ id: a1, attempts: 2 }]);
    await sql.query(MARK_DELIVERED_SQL, [a1]);
    expect(await claim()).toMatchObject([{ id: a1Next, attempts: 1 }]);
  });

  it('concurrent claims never hand out a row twice', async () => {
    const added: string[] = [];
    for (let i = 0; i < 40; i++) added.push(await add('t', String(i)));
    const clients = await Promise.all(Array.from({ length: 4 }, () => t.connect()));
    try {
      const batches = await Promise.all(clients.map((c) => claim(15, 60_000, queryableOf(c))));
      const claimed = batches.flatMap(ids);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.length).toBeLessThanOrEqual(40);
      expect([...claimed, ...ids(await claim())].sort()).toEqual([...added].sort());
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('skips the rows another transaction holds (SKIP LOCKED), so replicas claim past each other', async () => {
    // PGlite runs one transaction at a time: a held lock there would stop the test itself.
    if (t.db.kind !== 'postgres') return;
    const held = await add('h', '1');
    const free = await add('h', '2');
    const other = await t.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM test_deliveries WHERE id = $1 FOR UPDATE', [held]);
      expect(ids(await claim())).toEqual([free]);
      await other.query('ROLLBACK');
      expect(ids(await claim())).toEqual([held]);
    } finally {
      await other.end();
    }
  });

  it('a failed attempt is due again after its delay and holds its lane; the last one is DEAD and holds it until revived', async () => {
    const head = await add('d', '1');
    const behind = await add('d', '1');
    const elsewhere = await add('d', '2');
    expect(ids(await claim())).toEqual([head, elsewhere]);
    await sql.query(MARK_DELIVERED_SQL, [elsewhere]);

    expect(await fail(head, 60_000, 2)).toBe('PENDING');
    expect(await row(head)).toMatchObject({ due: 'later', leased: false, lastError: 'refused' });
    // The row behind it is due no earlier: the due index holds only rows that can go.
    expect(await row(behind)).toMatchObject({ state: 'PENDING', due: 'later' });
    expect(await claim()).toEqual([]);

    await expire(head);
    expect(await claim()).toMatchObject([{ id: head, attempts: 2 }]);
    expect(await fail(head, 60_000, 2)).toBe('DEAD');
    expect(await row(head)).toMatchObject({ state: 'DEAD', due: 'never', settled: false });
    expect(await row(behind)).toMatchObject({ state: 'PENDING', due: 'never' });
    const other = await add('d', '2'); // another lane goes on
    expect(ids(await claim())).toEqual([other]);

    // A new row of the dead lane waits behind it too.
    const later = await sql.query<{ due: string }[]>(
      `SELECT ${TABLE.dueBehindLane(["'d'", "'1'"])} = 'infinity' AS due`,
    );
    expect(later).toEqual([{ due: true }]);

    const [{ n }] = await sql.query<{ n: number }[]>(REVIVE_ALL_SQL);
    expect(n).toBe(1);
    expect(await row(head)).toMatchObject({ state: 'PENDING', attempts: 0, due: 'now' });
    expect(await row(behind)).toMatchObject({ state: 'PENDING', due: 'now' });
    expect(await claim()).toMatchObject([{ id: head, attempts: 1 }]);
  });

  it('a new row of a lane is due no earlier than the open rows before it', async () => {
    const due = (where?: string) =>
      sql
        .query<{ due: string }[]>(
          `SELECT CASE WHEN ${TABLE.dueBehindLane(["'n'", "'1'"], where)} > now() + interval '30 minutes'
                  THEN 'later' ELSE 'now' END AS due`,
        )
        .then((rows) => rows[0].due);
    expect(await due()).toBe('now'); // an empty lane
    await add('n', '1', 'create', 3_600_000);
    await add('n', '2'); // another lane
    expect(await due()).toBe('later');
    expect(await due(`l.kind = 'status'`)).toBe('now'); // only the rows `where` names count
  });

  it('supersedes a failed row that a newer one of its lane makes moot, and settles it', async () => {
    const old = await add('s', '1', 'status');
    await add('s', '1', 'status');
    expect(ids(await claim())).toEqual([old]);
    expect(await fail(old, 60_000, 5)).toBe('SUPERSEDED');
    expect(await row(old)).toMatchObject({ state: 'SUPERSEDED', settled: true, leased: false });
  });

  it('a row settled elsewhere keeps its outcome when only PENDING rows may change', async () => {
    const id = await add('p', '1');
    await claim();
    await sql.query(MARK_DELIVERED_SQL, [id]); // another replica, after this one's lease ran out
    expect(await fail(id, 60_000, 1, true)).toBeNull();
    expect(await row(id)).toMatchObject({ state: 'DELIVERED', settled: true });
    const onlyPending = TABLE.markDelivered({
      id: '$1',
      onlyPending: true,
      set: 'attempts = 99',
    });
    await sql.query(`UPDATE test_deliveries SET state = 'DEAD' WHERE id = $1`, [id]);
    await sql.query(onlyPending, [id]);
    expect(await row(id)).toMatchObject({ state: 'DEAD', attempts: 1 });
  });

  it('a pick narrows the candidates and a join adds what the claim returns', async () => {
    await sql.query(`INSERT INTO tenants VALUES ('x', 'tenant x'), ('y', 'tenant y')`);
    const x1 = await add('x', '1');
    await add('x', '2');
    const y1 = await add('y', '1');
    // At most one row per tenant in one claim.
    const onePerTenant = TABLE.claimDue({
      ...CLAIM,
      returning: `${RETURNING}, t.label`,
      pick: (candidates) => `SELECT r.id FROM (
         SELECT c.id, row_number() OVER (PARTITION BY c.tenant ORDER BY c.next_attempt_at, c.id) AS n
         FROM (${candidates}) c) r
       WHERE r.n = 1 LIMIT $1`,
      join: { from: 'tenants t', on: 't.name = q.tenant' },
    });
    const claimed = await sql.query<(Claimed & { label: string })[]>(onePerTenant, [10, 60_000]);
    expect(claimed.map((c) => [c.id, c.label])).toEqual([
      [x1, 'tenant x'],
      [y1, 'tenant y'],
    ]);
  });

  it('claims by group: each group its own oldest heads up to its take, round robin, and nothing of a group left out', async () => {
    // Tenant a has the oldest rows and many of them; b one, c one but not served.
    const a: string[] = [];
    for (let i = 0; i < 5; i++) a.push(await add('a', String(i)));
    const aBehind = await add('a', '0'); // behind a's first head: never a candidate with it
    const b1 = await add('b', '1');
    await add('c', '1');
    const byTenant = (groups: string) =>
      TABLE.claimDue({
        ...CLAIM,
        returning: `${RETURNING}`,
        groups: { column: 'tenant', select: groups },
      });
    const served = `SELECT * FROM (VALUES ('a', 3), ('b', 3)) AS v(grp, take)`;
    // Two slots: a's oldest, then b's, although a has older rows waiting.
    expect(ids(await sql.query<Claimed[]>(byTenant(served), [2, 60_000]))).toEqual([a[0], b1]);
    // Then a's next ones up to its take (its leased head does not count here: the caller's
    // take says what it may still start); c is never served, aBehind waits behind a[0].
    expect(ids(await sql.query<Claimed[]>(byTenant(served), [10, 60_000]))).toEqual([
      a[1],
      a[2],
      a[3],
    ]);
    expect(ids(await sql.query<Claimed[]>(byTenant(served), [10, 60_000]))).toEqual([a[4]]);
    // A pick sees the group's columns and each candidate's rank in its group.
    await sql.query(MARK_DELIVERED_SQL, [a[0]]);
    await sql.query(`UPDATE test_deliveries SET locked_until = NULL WHERE tenant = 'c'`);
    const ranked = TABLE.claimDue({
      ...CLAIM,
      groups: {
        column: 'tenant',
        select: `SELECT * FROM (VALUES ('a', 2, 'first'), ('c', 2, 'second')) AS v(grp, take, label)`,
      },
      returning: RETURNING,
      pick: (candidates) =>
        `SELECT r.id FROM (${candidates}) r WHERE r.label = 'first' AND r.n = 1 LIMIT $1`,
    });
    expect(ids(await sql.query<Claimed[]>(ranked, [10, 60_000]))).toEqual([aBehind]);
  });

  it('purges rows settled before the retention, oldest first, a batch at a time, and keeps the open ones', async () => {
    const store = new DeliveryStore(sql, TABLE);
    const settled: string[] = [];
    for (let i = 0; i < 5; i++) settled.push(await add('g', String(i)));
    const open = [await add('g', 'open'), await add('g', 'dead')];
    await sql.query(
      `UPDATE test_deliveries SET state = CASE WHEN id % 2 = 0 THEN 'DELIVERED' ELSE 'SUPERSEDED' END,
              settled_at = now() - (id - $2::bigint)::int * interval '1 minute' - interval '2 hours'
       WHERE id = ANY($1::bigint[])`,
      [settled, settled[0]],
    );
    await sql.query(`UPDATE test_deliveries SET state = 'DEAD' WHERE id = $1`, [open[1]]);
    const fresh = await add('g', 'fresh');
    await sql.query(MARK_DELIVERED_SQL, [fresh]); // settled within the retention

    expect(await store.purgeSettled(3_600_000, 2)).toBe(2);
    const left = async () =>
      ids(
        await sql.query<{ id: string }[]>(`SELECT id::text AS id FROM test_deliveries ORDER BY id`),
      );
    // The two settled longest ago went first (here the later the id, the earlier it settled).
    expect(await left()).toEqual([...settled.slice(0, 3), ...open, fresh]);
    expect(await store.purgeSettled(3_600_000, 10)).toBe(3);
    expect(await left()).toEqual([...open, fresh]);
  });

  it('reads the backlog: waiting and dead rows (counted up to a cap) and the age of the oldest waiting', async () => {
    const store = new DeliveryStore(sql, TABLE);
    expect(await store.backlog(100)).toEqual({ pending: 0, dead: 0, oldestPendingSeconds: 0 });
    for (let i = 0; i < 4; i++) await add('k', String(i));
    await sql.query(
      `UPDATE test_deliveries SET created_at = now() - interval '90 seconds' WHERE stream = '0'`,
    );
    await sql.query(`UPDATE test_deliveries SET state = 'DEAD' WHERE stream = '3'`);
    const backlog = await store.backlog(100);
    expect(backlog).toMatchObject({ pending: 3, dead: 1 });
    expect(backlog.oldestPendingSeconds).toBeGreaterThanOrEqual(90);
    expect(backlog.oldestPendingSeconds).toBeLessThan(120);
    expect(await store.backlog(2)).toMatchObject({ pending: 2, dead: 1 });
  });
});
