/**
 * The statements of a delivery queue table, for the table a service describes. A queue keeps its
 * rows in its own table (its own migration creates it), with at least these columns:
 *
 *   id bigserial PRIMARY KEY, state varchar NOT NULL DEFAULT 'PENDING', attempts int NOT NULL
 *   DEFAULT 0, next_attempt_at timestamptz NOT NULL, locked_until timestamptz NULL,
 *   last_error text NULL, settled_at timestamptz NULL, created_at timestamptz NOT NULL,
 *
 * and its lane columns. A row is PENDING until it is DELIVERED, DEAD (its attempts ran out; an
 * operator revives it) or, in a queue that has it, SUPERSEDED (made moot by a newer row). A
 * lane's PENDING and DEAD rows are its open ones, and only the oldest open row of a lane can go
 * out: a lane's rows arrive in id order, and a dead row holds back the rest of its lane only.
 * A failed head pushes the due time of the rest of its lane to its own ('infinity' while DEAD),
 * so the due index holds only rows that can go, and a claim never wades through a blocked lane.
 *
 * Indexes the statements read: the due order `(next_attempt_at, id) WHERE state = 'PENDING'`
 * (`(<group column>, next_attempt_at, id)` for a queue that claims by group), the open rows `(<lane>, id) WHERE state IN ('PENDING','DEAD')` (one probe per candidate), and
 * the settled rows `(settled_at) WHERE state IN (<settled>)` (the purge). Timing uses the
 * database clock, now(): retries and leases are about real time, and every replica agrees on it.
 * UPDATEs come wrapped in a SELECT (a CTE): TypeORM answers a bare UPDATE with [rows, count].
 */
export interface DeliveryTable {
  /** The table's name. */
  table: string;
  /** The columns whose equal values make one lane (e.g. `request_id`). */
  lane: readonly string[];
  /** The final states the purge deletes: DELIVERED, and SUPERSEDED where the queue has it. */
  settled: readonly string[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const STATE = /^[A-Z_]+$/;

/** The table as given, once its names are checked: they go into the statements' text. */
function checked(table: DeliveryTable): DeliveryTable {
  for (const name of [table.table, ...table.lane]) {
    if (!IDENTIFIER.test(name)) throw new Error(`Not a plain SQL name: ${name}`);
  }
  for (const state of table.settled) {
    if (!STATE.test(state)) throw new Error(`Not a state: ${state}`);
  }
  if (!table.lane.length) throw new Error(`${table.table}: a lane needs at least one column`);
  return table;
}

/** `(a.x = b.x AND a.y = b.y)` over the lane columns, of the aliases `a` and `b`. */
function sameLane(table: DeliveryTable, a: string, b: string): string {
  return table.lane.map((column) => `${a}.${column} = ${b}.${column}`).join(' AND ');
}

const settledStates = (table: DeliveryTable) => table.settled.map((s) => `'${s}'`).join(',');

/** `$n` ms from now, as a timestamptz. */
const inMs = (ms: string) => `now() + make_interval(secs => ${ms}::double precision / 1000)`;

export interface ClaimOptions {
  /**
   * The placeholders of the most candidates to lock (and claim, unless `pick` narrows them; by
   * groups: of the most rows the default pick claims) and of the lease, in ms.
   */
  limit: string;
  leaseMs: string;
  /** What comes back of each claimed row, `q` (and of the tables `join` adds). */
  returning: string;
  /** More conditions a candidate `o` must meet. */
  where?: string;
  /** CTEs the statement starts with (what `where` or `pick` read). */
  with?: string;
  /**
   * Chooses the rows claimed among the candidates (a SELECT whose rows have id, next_attempt_at
   * and the lane columns, given as its text): a SELECT of their ids. Default: every candidate.
   */
  pick?: (candidates: string) => string;
  /** Tables the returned rows read beside the queue's (FROM items), with their join condition on `q`. */
  join?: { from: string; on: string };
  /**
   * Claims by group instead of in the table's one due order. `select` is a SELECT of the groups
   * to serve, with the columns `grp` (a value of `column`) and `take` (the most rows to claim of
   * it), and any others the pick reads (not named id, next_attempt_at, n or like a lane column).
   * Each group's candidates are its own oldest due lane heads, up to its take, read by a probe of
   * the index `(column, next_attempt_at, id) WHERE state = 'PENDING'`: a group with a large
   * backlog costs the claim no more than its take and never crowds another out, and a group the
   * select leaves out (paused, at its cap) costs nothing. The candidates carry the group's
   * columns and `n`, their rank in their group (1 for its oldest). Without a pick, rows are taken
   * round robin, every group's first before any group's second, oldest due first within a
   * round, up to `limit` (which then bounds the claim, not the candidates).
   */
  groups?: { column: string; select: string };
}

/** The candidates of a claim by group (ClaimOptions.groups), locked, with their rank n. */
function groupCandidatesSql(
  table: DeliveryTable,
  options: ClaimOptions & { groups: { column: string; select: string } },
  headOfLane: string,
): string {
  const t = table.table;
  const { column, select } = options.groups;
  if (!IDENTIFIER.test(column)) throw new Error(`Not a plain SQL name: ${column}`);
  const lane = table.lane.map((c) => `o.${c}`).join(', ');
  return `SELECT c.*, row_number() OVER (PARTITION BY c.grp ORDER BY c.next_attempt_at, c.id) AS n
     FROM (
       SELECT g.*, o.id, o.next_attempt_at, ${lane}
       FROM (${select}) g
       CROSS JOIN LATERAL (
         SELECT o.id, o.next_attempt_at, ${lane}
         FROM ${t} o
         WHERE o.${column} = g.grp AND o.state = 'PENDING' AND o.next_attempt_at <= now()
           AND (o.locked_until IS NULL OR o.locked_until < now())${options.where ? `\n           AND ${options.where}` : ''}
           AND ${headOfLane}
         ORDER BY o.next_attempt_at, o.id
         LIMIT g.take
         FOR UPDATE SKIP LOCKED
       ) o
     ) c`;
}

/**
 * Claims due rows under a lease and counts the attempt: the oldest due PENDING rows (the due
 * index, in due order) whose lease is free and that head their lane (one probe of the open
 * index per candidate, so the cost follows the batch and the undelivered backlog, never the
 * delivered history; one busy lane holds back only itself). SKIP LOCKED lets replicas claim
 * disjoint sets. A claim by group (ClaimOptions.groups) takes each group's own oldest heads
 * instead, so a group's backlog never fills a claim another group waits on. Rows come back in id order; `attempts` is the attempt being made (1 for the
 * first). A worker that dies only delays its rows: the lease runs out and they are due again.
 */
function claimDueSql(table: DeliveryTable, options: ClaimOptions): string {
  const t = table.table;
  const headOfLane = `NOT EXISTS (
         SELECT 1 FROM ${t} e
         WHERE ${sameLane(table, 'e', 'o')} AND e.state IN ('PENDING','DEAD') AND e.id < o.id)`;
  let candidates: string;
  let pick: (candidates: string) => string;
  if (options.groups) {
    candidates = groupCandidatesSql(table, { ...options, groups: options.groups }, headOfLane);
    pick =
      options.pick ??
      ((c) =>
        `SELECT r.id FROM (${c}) r ORDER BY r.n, r.next_attempt_at, r.id LIMIT ${options.limit}`);
  } else {
    candidates = `SELECT o.id, o.next_attempt_at, ${table.lane.map((c) => `o.${c}`).join(', ')}
     FROM ${t} o
     WHERE o.state = 'PENDING' AND o.next_attempt_at <= now()
       AND (o.locked_until IS NULL OR o.locked_until < now())${options.where ? `\n       AND ${options.where}` : ''}
       AND ${headOfLane}
     ORDER BY o.next_attempt_at, o.id
     LIMIT ${options.limit}
     FOR UPDATE SKIP LOCKED`;
    pick = options.pick ?? ((c) => c);
  }
  return `WITH ${options.with ? `${options.with}, ` : ''}claimed AS (
   UPDATE ${t} q
   SET locked_until = ${inMs(options.leaseMs)}, attempts = q.attempts + 1
   FROM (
     ${pick(candidates)}
   ) due${options.join ? `, ${options.join.from}` : ''}
   WHERE q.id = due.id${options.join ? ` AND ${options.join.on}` : ''}
   RETURNING ${options.returning}
 )
 SELECT * FROM claimed ORDER BY id::bigint`;
}

export interface MarkDeliveredOptions {
  /** The placeholder of the row's id. */
  id: string;
  /** The queue's own columns of a delivery (`delivered_at = now()`, ...). */
  set?: string;
  /**
   * Whether only a PENDING row changes (a row another replica settled after this one's lease ran
   * out keeps that outcome), or any row (it was delivered, whatever became of it meanwhile).
   */
  onlyPending: boolean;
}

/** Row `id` was delivered: DELIVERED, settled now, its lease and last error cleared. */
function markDeliveredSql(table: DeliveryTable, options: MarkDeliveredOptions): string {
  return `UPDATE ${table.table}
   SET state = 'DELIVERED', settled_at = now(), locked_until = NULL, last_error = NULL${options.set ? `, ${options.set}` : ''}
   WHERE id = ${options.id}${options.onlyPending ? ` AND state = 'PENDING'` : ''}`;
}

export interface SettleFailureOptions {
  /** Placeholders: the row's id, the delay before its next attempt (ms), the attempts it may make. */
  id: string;
  delayMs: string;
  maxAttempts: string;
  /** The queue's own columns of a failed attempt (`last_error = $3`, ...). */
  set: string;
  /** When the row `q` is SUPERSEDED instead of retried (a newer row of its lane makes it moot). */
  supersededWhen?: string;
  /** Whether only a PENDING row changes (see MarkDeliveredOptions). */
  onlyPending: boolean;
  /** CTEs to run beside it (e.g. an attempt log). */
  with?: string;
}

/**
 * After a failed attempt: SUPERSEDED when `supersededWhen` holds, DEAD once the row made
 * `maxAttempts` attempts, otherwise due again after `delayMs`. The later rows of its lane are due
 * no earlier (never, while it is DEAD). Returns the state it ends in as {state} (no row: none
 * changed).
 */
function settleFailureSql(table: DeliveryTable, options: SettleFailureOptions): string {
  const t = table.table;
  const superseded = options.supersededWhen
    ? `WHEN ${options.supersededWhen} THEN 'SUPERSEDED'\n               `
    : '';
  return `WITH next AS (
   SELECT q.id,
          CASE ${superseded}WHEN q.attempts >= ${options.maxAttempts}::int THEN 'DEAD'
               ELSE 'PENDING' END AS state
   FROM ${t} q WHERE q.id = ${options.id}${options.onlyPending ? ` AND q.state = 'PENDING'` : ''}
 ), upd AS (
   UPDATE ${t} q
   SET state = next.state, locked_until = NULL, ${options.set},
       settled_at = CASE WHEN next.state IN (${settledStates(table)}) THEN now() END,
       next_attempt_at = CASE WHEN next.state = 'DEAD' THEN 'infinity'::timestamptz
                              ELSE ${inMs(options.delayMs)} END
   FROM next WHERE q.id = next.id
   RETURNING q.id, ${table.lane.map((c) => `q.${c}`).join(', ')}, q.state, q.next_attempt_at
 ), held AS (
   UPDATE ${t} l
   SET next_attempt_at = greatest(l.next_attempt_at, upd.next_attempt_at)
   FROM upd
   WHERE ${sameLane(table, 'l', 'upd')} AND l.state = 'PENDING' AND l.id > upd.id
     AND upd.state IN ('PENDING','DEAD')
 )${options.with ? `, ${options.with}` : ''}
 SELECT state FROM upd`;
}

/**
 * Revives the DEAD rows of `dead` (a CTE with their id and lane columns) with the open rows held
 * behind them in their lanes: PENDING, due now, attempts from zero for the dead ones. An UPDATE,
 * for a CTE of the caller's statement.
 */
function reviveDeadSql(table: DeliveryTable, dead: string): string {
  return `UPDATE ${table.table} q
   SET attempts = CASE WHEN q.state = 'DEAD' THEN 0 ELSE q.attempts END,
       state = 'PENDING', next_attempt_at = now(), settled_at = NULL, locked_until = NULL
   FROM ${dead} d
   WHERE ${sameLane(table, 'q', 'd')} AND q.state IN ('PENDING','DEAD') AND q.id >= d.id`;
}

/**
 * The next_attempt_at of a new row of the lane whose columns have the values `lane` (SQL
 * expressions, in the lane's order): now, or later while open rows of that lane (`l`, meeting
 * `where` too) wait longer, since it cannot go before them.
 */
function dueBehindLaneSql(table: DeliveryTable, lane: readonly string[], where = ''): string {
  const same = table.lane.map((column, i) => `l.${column} = ${lane[i]}`).join(' AND ');
  return `greatest(now(), (SELECT max(l.next_attempt_at) FROM ${table.table} l
     WHERE ${same} AND l.state IN ('PENDING','DEAD')${where ? ` AND ${where}` : ''}))`;
}

/**
 * Deletes up to $2 rows settled more than $1 ms ago, oldest first (the settled index); returns
 * how many as n. PENDING and DEAD rows are kept.
 */
function purgeSettledSql(table: DeliveryTable): string {
  const t = table.table;
  return `WITH gone AS (
   DELETE FROM ${t} WHERE id IN (
     SELECT id FROM ${t}
     WHERE state IN (${settledStates(table)})
       AND settled_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY settled_at
     LIMIT $2)
   RETURNING 1
 )
 SELECT count(*)::int AS n FROM gone`;
}

/**
 * The backlog for the metrics (read at scrape time, not per row): PENDING and DEAD rows, each
 * counted up to $1, and the age in seconds of the oldest PENDING one among those (0: none).
 * Reads the partial indexes of open rows, so its cost follows the backlog (bounded by $1), never
 * the delivered history.
 */
function backlogSql(table: DeliveryTable): string {
  const t = table.table;
  return `SELECT
   (SELECT count(*) FROM (SELECT 1 FROM ${t} WHERE state = 'PENDING' LIMIT $1) p)::int AS pending,
   (SELECT count(*) FROM (SELECT 1 FROM ${t} WHERE state = 'DEAD' LIMIT $1) d)::int AS dead,
   coalesce(extract(epoch FROM now() - (SELECT min(created_at) FROM
     (SELECT created_at FROM ${t} WHERE state = 'PENDING' LIMIT $1) o)), 0)::float8 AS "oldestPendingSeconds"`;
}

/** The statements of one queue table (see the top of this file), bound to it. */
export interface DeliveryTableSql {
  readonly table: DeliveryTable;
  /** Claims due lane heads under a lease, counting the attempt. */
  claimDue(options: ClaimOptions): string;
  /** Marks a row DELIVERED. */
  markDelivered(options: MarkDeliveredOptions): string;
  /** Settles a failed attempt: retry, SUPERSEDED or DEAD, the lane held behind it. */
  settleFailure(options: SettleFailureOptions): string;
  /** An UPDATE (for a CTE) reviving the dead rows of the CTE `dead` and the lanes behind them. */
  reviveDead(dead: string): string;
  /** The next_attempt_at of a new row of a lane (see dueBehindLaneSql). */
  dueBehindLane(lane: readonly string[], where?: string): string;
  /** $1 retention ms, $2 limit: deletes settled rows, oldest first; returns {n}. */
  readonly purgeSettled: string;
  /** $1 cap: {pending, dead, oldestPendingSeconds}. */
  readonly backlog: string;
}

/** The statements of the queue table `table` (its names are checked: they go into the text). */
export function deliveryTableSql(table: DeliveryTable): DeliveryTableSql {
  const t = checked(table);
  return {
    table: t,
    claimDue: (options) => claimDueSql(t, options),
    markDelivered: (options) => markDeliveredSql(t, options),
    settleFailure: (options) => settleFailureSql(t, options),
    reviveDead: (dead) => reviveDeadSql(t, dead),
    dueBehindLane: (lane, where) => dueBehindLaneSql(t, lane, where),
    purgeSettled: purgeSettledSql(t),
    backlog: backlogSql(t),
  };
}
