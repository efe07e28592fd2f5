import { deliveryTableSql } from '@bank/shared/delivery';
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
 * The queue's mechanism (claim under lease, backoff, dead letters, purge, backlog) is
 * @bank/shared/delivery's; this file says what is the outbox's own.
 */

/** outbox_messages as a delivery queue: the messages of one request are one lane. */
export const OUTBOX_TABLE = deliveryTableSql({
  table: 'outbox_messages',
  lane: ['request_id'],
  settled: ['DELIVERED', 'SUPERSEDED'],
});

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
      : OUTBOX_TABLE.dueBehindLane(['src.request_id'], `l.type = 'operation.create'`);
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
 * Claims up to $1 due messages under a lease of $2 ms and counts the attempt (claimDue): one
 * busy request holds back only its own messages. Rows are ClaimedMessage, oldest first.
 */
export const CLAIM_OUTBOX_MESSAGES_SQL = OUTBOX_TABLE.claimDue({
  limit: '$1',
  leaseMs: '$2',
  returning: `q.id::text AS id, q.request_id AS "requestId", q.type, q.payload, q.attempts,
             q.trace_context AS "traceContext"`,
});

/** $1 = message id. (A message superseded while it was on its way was delivered all the same.) */
export const MARK_OUTBOX_MESSAGE_DELIVERED_SQL = OUTBOX_TABLE.markDelivered({
  id: '$1',
  set: 'delivered_at = now()',
  onlyPending: false,
});

/**
 * After a failed attempt of message $1 (why: $3): SUPERSEDED if a newer status of its request
 * waits (that one carries a higher sequence), DEAD once it made $4 attempts, otherwise due again
 * in $2 ms; the request's later messages are due no earlier (settleFailure). Returns the state
 * it ends in as {state}.
 */
export const SETTLE_OUTBOX_FAILURE_SQL = OUTBOX_TABLE.settleFailure({
  id: '$1',
  delayMs: '$2',
  maxAttempts: '$4',
  set: 'last_error = $3',
  supersededWhen: `q.type = 'operation.status' AND EXISTS (
                 SELECT 1 FROM outbox_messages n
                 WHERE n.request_id = q.request_id AND n.state = 'PENDING' AND n.id > q.id
                   AND n.type = 'operation.status')`,
  onlyPending: false,
});

/**
 * Gives the DEAD messages (of request $1, or all when $1 is null) a fresh start: PENDING, due
 * now, attempts from zero, and the messages held behind them due now too. Returns how many dead
 * letters as n.
 */
export const REDELIVER_DEAD_OUTBOX_MESSAGES_SQL = `WITH dead AS (
   SELECT id, request_id FROM outbox_messages
   WHERE state = 'DEAD' AND ($1::text IS NULL OR request_id = $1::text)
 ), revived AS (
   ${OUTBOX_TABLE.reviveDead('dead')}
 )
 SELECT count(*)::int AS n FROM dead`;

/** The DEAD messages, oldest first, at most $1: what an operator looks at before redelivering. */
export const SELECT_DEAD_OUTBOX_MESSAGES_SQL = `SELECT id::text AS id, request_id AS "requestId", type,
  attempts, last_error AS "lastError"
 FROM outbox_messages WHERE state = 'DEAD' ORDER BY id LIMIT $1`;

/** Deletes up to $2 messages DELIVERED or SUPERSEDED more than $1 ms ago; returns how many as n. */
export const PURGE_SETTLED_OUTBOX_MESSAGES_SQL = OUTBOX_TABLE.purgeSettled;

/** The backlog for the metrics: PENDING and DEAD messages, each counted up to $1, and the oldest's age. */
export const SELECT_OUTBOX_BACKLOG_SQL = OUTBOX_TABLE.backlog;
