import { INSERT_CARD_ISSUE_SQL } from '../src/card-issues/card-issues.sql';

// Many card issue requests at once, stored as a POST stores them: for the bench (tools/bench)
// and the tests that need a burst no HTTP client makes in seconds.

/**
 * Columns of the rows seedCardIssues stores, one per INSERT_CARD_ISSUE_SQL parameter it sets:
 * business_day (ddMMyyyy), status, card_owner, holder_user_id, form_factor, card_holder (JSON
 * text), at (timestamptz).
 */
export type SeedRowsQuery = string;

/**
 * Requests numbered from..to (inclusive): `mixed` makes every 20th CREATED, every 20th + 1
 * PROCESSING, the rest READY / PLASTIC_READY, all two hours old (so the due ones are due);
 * `created` makes them all CREATED. About 10 requests per owner at 10^6; a third have a holder
 * of their own. Ids come from the day's sequence, 400,000 per business day from 01-01-2026
 * (a day has 10^6).
 */
export function bulkRequests(
  from: number,
  to: number,
  statuses: 'mixed' | 'created',
): SeedRowsQuery {
  const status =
    statuses === 'created'
      ? `'CREATED'`
      : `CASE WHEN i % 20 = 0 THEN 'CREATED' WHEN i % 20 = 1 THEN 'PROCESSING' WHEN i % 2 = 0 THEN 'READY' ELSE 'PLASTIC_READY' END`;
  return `SELECT to_char(date '2026-01-01' + i / 400000, 'DDMMYYYY') AS business_day,
       ${status} AS status,
       'X' || lpad((i % 99991)::text, 5, '0') AS card_owner,
       CASE WHEN i % 3 = 0 THEN 'Y' || lpad((i % 99989)::text, 5, '0') END AS holder_user_id,
       CASE WHEN i % 2 = 0 THEN 'VIRTUAL' ELSE 'PLASTIC' END AS form_factor,
       '{"nameless": false, "embossedName": "BENCH USER"}' AS card_holder,
       now() - interval '2 hours' - i * interval '1 millisecond' AS at
     FROM generate_series(${from}, ${to}) AS i`;
}

/** `count` READY virtual requests owned and held by `userId`, created now. */
export function requestsOf(userId: string, count: number): SeedRowsQuery {
  return `SELECT '01022026' AS business_day, 'READY' AS status, '${userId}' AS card_owner,
       '${userId}' AS holder_user_id, 'VIRTUAL' AS form_factor, '{"nameless": false}' AS card_holder,
       now() AS at
     FROM generate_series(1, ${count}) AS i`;
}

/**
 * Runs a statement on one database session and gives its rows (the session-local function below
 * must outlive the statement that makes it): a pg Client's `(sql) => client.query(sql).then((r) =>
 * r.rows)`, or a TypeORM QueryRunner's `(sql) => runner.query(sql)`.
 */
export type SqlSession = (sql: string) => Promise<unknown[]>;

/**
 * Stores the rows of `rows` with the repository's own INSERT_CARD_ISSUE_SQL (request, first
 * history entry and outbox message, as a POST does), wrapped unchanged as a session-local SQL
 * function so PostgreSQL plans it once and runs it per row: 10^5 requests in seconds, in one
 * transaction (they appear at once, as for a scheduler they would after a burst of POSTs).
 * The outbox messages stay pending, as the service leaves them with delivery off.
 */
export async function seedCardIssues(session: SqlSession, rows: SeedRowsQuery): Promise<number> {
  await session(`CREATE OR REPLACE FUNCTION pg_temp.insert_card_issue(
       text, text, text, text, text, text, text, text, text, timestamptz, text, text)
     RETURNS text VOLATILE LANGUAGE sql AS $statement$ ${INSERT_CARD_ISSUE_SQL} $statement$`);
  const [stored] = (await session(
    `SELECT count(pg_temp.insert_card_issue(business_day, status, NULL, card_owner, holder_user_id,
       form_factor, card_holder, NULL, NULL, at, NULL, NULL))::int AS n FROM (${rows}) AS seed`,
  )) as { n: number }[];
  return stored.n;
}
