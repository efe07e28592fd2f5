import type { OutboxMessageType } from './outbox-message.model';

/**
 * Every statement on outbox_messages. The writes (insertOutboxMessage, supersedeOlderStatuses)
 * are fragments the card issue statements embed (card-issues.sql.ts), so a message is written in
 * the statement of the change it reports; the rest are run by OutboxRepository. Timing uses the
 * database clock, now(): retries and leases are about real time, and every replica agrees on it.
 *
 * A message is PENDING until it is DELIVERED, SUPERSEDED (a newer status of its request made it
 * moot: the operation service keeps only the highest sequence) or DEAD (OUTBOX_MAX_ATTEMPTS
 * failed attempts; an operator redelivers it). A request's PENDING and DEAD messages are its
 * "open" ones; only the oldest open message of a request can go out, so a request's messages
 * arrive in order and a dead create holds back the statuses that would need its operation.
 */

/**
 * The outbox message that mirrors a change of `source` (a CTE or table with request_id)
 * to the operation service, with `payload` built from its columns. The one place the
 * outbox_messages INSERT is written. The payload shapes are OutboxPayload's
 * (outbox-message.model.ts), key for key:
 *
 * - 'operation.create' (INSERT_CARD_ISSUE_SQL): OperationCreatePayload, {requestId, cardOwner,
 *   holderUserId, formFactor, status, sequence: 1};
 * - 'operation.status' (APPLY_STATUS_CHANGE_SQL, MOVE_DUE_BATCH_SQL): OperationStatusPayload,
 *   {requestId, status, sequence}.
 *
 * `traceContext` is the SQL of the message's trace_context (CorrelationHeaders as jsonb, or NULL):
 * the trace and request id of the change, so the delivery continues that request's trace.
 */
export function insertOutboxMessage(
  type: OutboxMessageType,
  payload: string,
  source: string,
  traceContext: string,
): string {
  // A status is due no earlier than its request's create (retrying, or DEAD: 'infinity'), since
  // it cannot go before it; so the outbox's due index holds only messages that can go.
  const due =
    type === 'operation.create'
      ? 'now()'
      : `greatest(now(), (SELECT max(c.next_attempt_at) FROM outbox_messages c
          WHERE c.request_id = src.request_id AND c.state IN ('PENDING','DEAD') AND c.type = 'operation.create'))`;
  return `INSERT INTO outbox_messages (request_id, type, payload, next_attempt_at, created_at, trace_context)
   SELECT request_id, '${type}', ${payload}, ${due}, now(), ${traceContext}
   FROM ${source} src`;
}

/**
 * Coalesces a request's status backlog: the older 'operation.status' messages of the requests
 * in `source` that wait (PENDING, or DEAD) are SUPERSEDED by the one written beside this
 * fragment, since the operation service keeps only the highest sequence. A message on its way
 * (under an unexpired lease) is left to its worker. Each request's open messages are looked up
 * on their own (LATERAL: one probe of the partial index of open messages (request_id, id) per
 * request; OFFSET 0 keeps the planner from flattening it back into a join), whatever it believes
 * of the table: as a join, a freshly grown backlog with
 * stale statistics made it read the whole open index once per moved request (2.3 s for a batch
 * of 500 over a 100,000-message backlog), so a storm of PATCHes leaves at most one status
 * waiting per request at a cost that follows the batch.
 */
export function supersedeOlderStatuses(source: string): string {
  return `UPDATE outbox_messages o
   SET state = 'SUPERSEDED', settled_at = now()
   FROM (
     SELECT w.id FROM ${source} s CROSS JOIN LATERAL (
       SELECT e.id FROM outbox_messages e
       WHERE e.request_id = s.request_id AND e.state IN ('PENDING','DEAD') AND e.type = 'operation.status'
         AND (e.locked_until IS NULL OR e.locked_until < now())
       OFFSET 0
     ) w
   ) waiting
   WHERE o.id = waiting.id`;
}

/**
 * Claims up to $1 due messages under a lease of $2 ms and counts the attempt. Reads the partial
 * index of PENDING rows in due order and probes the partial index of open rows once per
 * candidate (is there an older open message of the same request?), so its cost follows the
 * batch and the undelivered backlog, never the delivered history; one busy request holds back
 * only its own messages. SKIP LOCKED lets replicas claim disjoint batches. Rows are
 * ClaimedMessage, oldest first. (A top-level UPDATE would come back from TypeORM as
 * [rows, count]; the CTE makes it a SELECT.)
 */
export const CLAIM_OUTBOX_MESSAGES_SQL = `WITH claimed AS (
   UPDATE outbox_messages m
   SET locked_until = now() + make_interval(secs => $2::double precision / 1000), attempts = m.attempts + 1
   FROM (
     SELECT o.id FROM outbox_messages o
     WHERE o.state = 'PENDING' AND o.next_attempt_at <= now()
       AND (o.locked_until IS NULL OR o.locked_until < now())
       AND NOT EXISTS (
         SELECT 1 FROM outbox_messages e
         WHERE e.request_id = o.request_id AND e.state IN ('PENDING','DEAD') AND e.id < o.id)
     ORDER BY o.next_attempt_at, o.id
     LIMIT $1
     FOR UPDATE SKIP LOCKED
   ) due
   WHERE m.id = due.id
   RETURNING m.id::text AS id, m.request_id AS "requestId", m.type, m.payload, m.attempts,
             m.trace_context AS "traceContext"
 )
 SELECT * FROM claimed ORDER BY id::bigint`;

/** $1 = message id. (A message superseded while it was on its way was delivered all the same.) */
export const MARK_OUTBOX_MESSAGE_DELIVERED_SQL = `UPDATE outbox_messages
 SET state = 'DELIVERED', delivered_at = now(), settled_at = now(), locked_until = NULL, last_error = NULL
 WHERE id = $1`;

/**
 * After a failed attempt of message $1 (why: $3): SUPERSEDED if a newer status of its request
 * waits (that one carries a higher sequence), DEAD once it made $4 attempts, otherwise due again
 * in $2 ms. The request's later messages cannot go before it, so they are due no earlier (never,
 * while it is DEAD): the due index then holds only messages that can go, and a claim never wades
 * through a blocked backlog. Returns the state it ends in as {state}.
 */
export const SETTLE_OUTBOX_FAILURE_SQL = `WITH next AS (
   SELECT m.id,
          CASE WHEN m.type = 'operation.status' AND EXISTS (
                 SELECT 1 FROM outbox_messages n
                 WHERE n.request_id = m.request_id AND n.state = 'PENDING' AND n.id > m.id
                   AND n.type = 'operation.status') THEN 'SUPERSEDED'
               WHEN m.attempts >= $4::int THEN 'DEAD'
               ELSE 'PENDING' END AS state
   FROM outbox_messages m WHERE m.id = $1
 ), upd AS (
   UPDATE outbox_messages m
   SET state = next.state, locked_until = NULL, last_error = $3,
       settled_at = CASE WHEN next.state IN ('DELIVERED','SUPERSEDED') THEN now() END,
       next_attempt_at = CASE WHEN next.state = 'DEAD' THEN 'infinity'::timestamptz
                              ELSE now() + make_interval(secs => $2::double precision / 1000) END
   FROM next WHERE m.id = next.id
   RETURNING m.id, m.request_id, m.state, m.next_attempt_at
 ), held AS (
   UPDATE outbox_messages l
   SET next_attempt_at = greatest(l.next_attempt_at, upd.next_attempt_at)
   FROM upd
   WHERE l.request_id = upd.request_id AND l.state = 'PENDING' AND l.id > upd.id
     AND upd.state IN ('PENDING','DEAD')
 )
 SELECT state FROM upd`;

/**
 * Gives the DEAD messages (of request $1, or all when $1 is null) a fresh start: PENDING, due
 * now, attempts from zero, and the messages held behind them due now too. Returns how many dead
 * letters as n.
 */
export const REDELIVER_DEAD_OUTBOX_MESSAGES_SQL = `WITH dead AS (
   SELECT id, request_id FROM outbox_messages
   WHERE state = 'DEAD' AND ($1::text IS NULL OR request_id = $1::text)
 ), revived AS (
   UPDATE outbox_messages m
   SET attempts = CASE WHEN m.state = 'DEAD' THEN 0 ELSE m.attempts END,
       state = 'PENDING', next_attempt_at = now(), settled_at = NULL, locked_until = NULL
   WHERE m.state IN ('PENDING','DEAD') AND m.request_id IN (SELECT request_id FROM dead)
 )
 SELECT count(*)::int AS n FROM dead`;

/** The DEAD messages, oldest first, at most $1: what an operator looks at before redelivering. */
export const SELECT_DEAD_OUTBOX_MESSAGES_SQL = `SELECT id::text AS id, request_id AS "requestId", type,
  attempts, last_error AS "lastError"
 FROM outbox_messages WHERE state = 'DEAD' ORDER BY id LIMIT $1`;

/**
 * Deletes up to $2 messages DELIVERED or SUPERSEDED more than $1 ms ago, oldest first (the
 * partial index of settled rows); returns how many as n. PENDING and DEAD rows are kept.
 */
export const PURGE_SETTLED_OUTBOX_MESSAGES_SQL = `WITH gone AS (
   DELETE FROM outbox_messages WHERE id IN (
     SELECT id FROM outbox_messages
     WHERE state IN ('DELIVERED','SUPERSEDED')
       AND settled_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY settled_at
     LIMIT $2)
   RETURNING 1
 )
 SELECT count(*)::int AS n FROM gone`;

/**
 * The backlog for the metrics (read at scrape time, not per message): PENDING and DEAD messages,
 * each counted up to $1, and the age in seconds of the oldest PENDING one among those (0: none).
 * Reads the partial indexes of open messages, so its cost follows the backlog (bounded by $1),
 * never the delivered history.
 */
export const SELECT_OUTBOX_BACKLOG_SQL = `SELECT
   (SELECT count(*) FROM (SELECT 1 FROM outbox_messages WHERE state = 'PENDING' LIMIT $1) p)::int AS pending,
   (SELECT count(*) FROM (SELECT 1 FROM outbox_messages WHERE state = 'DEAD' LIMIT $1) d)::int AS dead,
   coalesce(extract(epoch FROM now() - (SELECT min(created_at) FROM
     (SELECT created_at FROM outbox_messages WHERE state = 'PENDING' LIMIT $1) o)), 0)::float8 AS "oldestPendingSeconds"`;
