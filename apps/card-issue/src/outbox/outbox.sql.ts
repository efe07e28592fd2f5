/**
 * The statements on outbox_messages alone, run by OutboxRepository. (Messages are written by
 * the card issue statements, in the transaction of the change they report: card-issues.sql.ts.)
 * Timing uses the database clock, now(): retries and leases are about real time, and every
 * replica agrees on it.
 */

/**
 * Claims up to $1 due messages under a lease of $2 ms and counts the attempt. Only the oldest
 * undelivered message of each request can be claimed, so a request's messages go out in order;
 * SKIP LOCKED lets replicas claim disjoint batches. Rows are ClaimedMessage, oldest first.
 * (A top-level UPDATE would come back from TypeORM as [rows, count]; the CTE makes it a SELECT.)
 */
export const CLAIM_OUTBOX_MESSAGES_SQL = `WITH claimed AS (
   UPDATE outbox_messages m
   SET locked_until = now() + make_interval(secs => $2::double precision / 1000), attempts = m.attempts + 1
   FROM (
     SELECT o.id FROM outbox_messages o
     WHERE o.delivered_at IS NULL AND o.next_attempt_at <= now()
       AND (o.locked_until IS NULL OR o.locked_until < now())
       AND NOT EXISTS (
         SELECT 1 FROM outbox_messages e
         WHERE e.request_id = o.request_id AND e.delivered_at IS NULL AND e.id < o.id)
     ORDER BY o.id
     LIMIT $1
     FOR UPDATE SKIP LOCKED
   ) due
   WHERE m.id = due.id
   RETURNING m.id::text AS id, m.request_id AS "requestId", m.type, m.payload, m.attempts
 )
 SELECT * FROM claimed ORDER BY id::bigint`;

/** $1 = message id. */
export const MARK_OUTBOX_MESSAGE_DELIVERED_SQL = `UPDATE outbox_messages
 SET delivered_at = now(), locked_until = NULL, last_error = NULL WHERE id = $1`;

/** Gives the message back, due again in $2 ms, with why it failed ($3). $1 = message id. */
export const SCHEDULE_OUTBOX_RETRY_SQL = `UPDATE outbox_messages
 SET locked_until = NULL, last_error = $3,
     next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
 WHERE id = $1`;
