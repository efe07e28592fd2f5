import { REQUEST_ID_NUMBER_DIGITS, REQUEST_ID_PREFIX } from '@bank/shared/identifiers';
import { insertOutboxMessage, supersedeOlderStatuses } from '../outbox/outbox.sql';
import { webhookEventData, webhookEvents } from '../webhooks/webhook-deliveries.sql';

/**
 * Every statement that reads or writes the card_issue_* tables, as plain strings: the
 * repository (CardIssuesRepository) runs them, and the benchmark baseline (tools/bench) runs
 * the very same ones, so the two always do the same database work. A change writes its outbox
 * message and webhook events in its own statement; their parts are written by the tables they
 * go to (outbox/outbox.sql.ts, webhooks/webhook-deliveries.sql.ts) and composed here.
 */

/**
 * Stores a new request in one statement: the request with its id generated from the day's
 * sequence ($1 = ddMMyyyy), its first history entry, its webhook event (card_issue.created, or
 * card_issue.failed for a request stored FAILED; sequence 1) and the outbox message that creates its
 * operation ($11 = the request's CorrelationHeaders as JSON text, or null); a third-party holder
 * created for it ($12, its creation key, else null) is no longer pending
 * (CLAIM_HOLDER_CREATION_SQL). (The response of an Idempotency-Key is stored in the same transaction by
 * @bank/shared/idempotency, as the exact text sent.)
 */
export const INSERT_CARD_ISSUE_SQL = `WITH req AS (
   INSERT INTO card_issue_requests (request_id, status, failure_reason, card_owner, holder_user_id, form_factor,
                                    card_holder, options, delivery, status_sequence, created_at, updated_at)
   VALUES ('${REQUEST_ID_PREFIX}' || $1::text ||
           lpad(card_issue_next_request_number($1::text)::text, ${REQUEST_ID_NUMBER_DIGITS}, '0'),
           $2::text, $3::text, $4::text, $5::text, $6::text, $7::jsonb, $8::jsonb, $9::jsonb, 1, $10::timestamptz, $10::timestamptz)
   RETURNING request_id
 ), holder_created AS (
   DELETE FROM card_issue_holder_creations WHERE idempotency_key = $12::text
 ), history AS (
   INSERT INTO card_issue_status_history (request_id, status, source, at)
   SELECT request_id, $2::text, 'api', $10::timestamptz FROM req
 ), ${webhookEvents(`SELECT request_id,
          CASE WHEN $2::text = 'FAILED' THEN 'card_issue.failed' ELSE 'card_issue.created' END AS event_type,
          1 AS ord, 1 AS sequence,
          ${webhookEventData('$2::text', 'NULL::text', "'api'", '$3::text')} AS data,
          $10::timestamptz AS occurred_at, $11::jsonb AS trace_context
   FROM req`)}, outbox AS (
   ${insertOutboxMessage(
     'operation.create',
     `jsonb_build_object('requestId', request_id, 'cardOwner', $4::text, 'holderUserId', $5::text,
                         'formFactor', $6::text, 'status', $2::text, 'sequence', 1)`,
     'req',
     '$11::jsonb',
   )}
 )
 SELECT request_id AS "requestId" FROM req`;

/**
 * The columns of a request row `r` with its history: one statement and one round trip per
 * read, whatever the number of requests. Instants leave the database as epoch milliseconds
 * (the precision the service writes them with), so no timestamp text is parsed and the
 * session time zone plays no part.
 */
const RECORD_COLUMNS = `r.request_id AS "requestId", r.status, r.failure_reason AS "failureReason",
  r.card_owner AS "cardOwner", r.form_factor AS "formFactor", r.card_holder AS "cardHolder", r.options, r.delivery,
  floor(extract(epoch FROM r.created_at) * 1000)::float8 AS "createdAt",
  floor(extract(epoch FROM r.updated_at) * 1000)::float8 AS "updatedAt",
  (SELECT coalesce(json_agg(json_build_object('status', h.status, 'source', h.source,
                                              'at', floor(extract(epoch FROM h.at) * 1000)) ORDER BY h.id), '[]')
     FROM card_issue_status_history h WHERE h.request_id = r.request_id) AS history`;

/** One request with its history; $1 = request id. */
export const SELECT_CARD_ISSUE_BY_ID_SQL = `SELECT ${RECORD_COLUMNS} FROM card_issue_requests r WHERE r.request_id = $1`;

/**
 * Requests whose owner or holder is $1, newest first, with their history; $2 = limit + offset,
 * $3 = limit, $4 = offset. Two index range scans (owner, holder) merged, so the cost follows
 * the page, not the table.
 */
export const SELECT_CARD_ISSUES_BY_CLIENT_SQL = `SELECT ${RECORD_COLUMNS}
 FROM (
   (SELECT request_id, created_at FROM card_issue_requests WHERE card_owner = $1
    ORDER BY created_at DESC, request_id DESC LIMIT $2)
   UNION
   (SELECT request_id, created_at FROM card_issue_requests WHERE holder_user_id = $1
    ORDER BY created_at DESC, request_id DESC LIMIT $2)
   ORDER BY created_at DESC, request_id DESC LIMIT $3 OFFSET $4
 ) page
 JOIN card_issue_requests r ON r.request_id = page.request_id
 ORDER BY page.created_at DESC, page.request_id DESC`;

/**
 * Locks one request for a status change (until the transaction ends) and reads what the change
 * needs. $1 = request id.
 */
export const LOCK_CARD_ISSUE_SQL = `SELECT request_id AS "requestId", status, failure_reason AS "failureReason",
  form_factor AS "formFactor", status_sequence AS "statusSequence"
 FROM card_issue_requests WHERE request_id = $1
 FOR UPDATE`;

/**
 * A status change of one locked request: the row, a history entry, its webhook events
 * (card_issue.status_changed, then card_issue.failed when the new status is FAILED) and the
 * outbox message that mirrors it (superseding the older statuses still waiting). $1 = request id,
 * $2 = status, $3 = failure reason, $4 = new status sequence, $5 = instant, $6 = source (api |
 * scheduler), $7 = the CorrelationHeaders of the change as JSON text, or null, $8 = the status
 * before the change.
 */
export const APPLY_STATUS_CHANGE_SQL = `WITH upd AS (
   UPDATE card_issue_requests SET status = $2, failure_reason = $3, status_sequence = $4, updated_at = $5
   WHERE request_id = $1 RETURNING request_id
 ), history AS (
   INSERT INTO card_issue_status_history (request_id, status, source, at) SELECT request_id, $2, $6, $5 FROM upd
 ), ${webhookEvents(`SELECT upd.request_id, t.event_type, t.ord, $4::int AS sequence,
          ${webhookEventData('$2::text', '$8::text', '$6::text', '$3::text')} AS data,
          $5::timestamptz AS occurred_at, $7::jsonb AS trace_context
   FROM upd CROSS JOIN (VALUES ('card_issue.status_changed', 1), ('card_issue.failed', 2)) t(event_type, ord)
   WHERE t.ord = 1 OR $2::text = 'FAILED'`)}, superseded AS (
   ${supersedeOlderStatuses('upd')}
 )
 ${insertOutboxMessage(
   'operation.status',
   `jsonb_build_object('requestId', request_id, 'status', $2::text, 'sequence', $4::int)`,
   'upd',
   '$7::jsonb',
 )}`;

/**
 * One batch of automatic moves: claims due requests with FOR UPDATE SKIP LOCKED, moves
 * them, writes their history entries, webhook events (card_issue.status_changed, source
 * scheduler; a move never ends in FAILED) and outbox messages (superseding older waiting statuses),
 * and returns the moved ids. The due requests are read as two range scans of the status index
 * (CREATED by updated_at, PROCESSING by updated_at), each stopping after $4 rows, merged and cut
 * to $4: the cost follows the batch, not the due backlog (an OR of the two would make the planner
 * read every due row and sort them). Up to $4 rows of each kind are locked; the ones cut off
 * stay unchanged and are unlocked at commit.
 * $1 = now, $2 = CREATED at or before this moves, $3 = PROCESSING at or before this moves,
 * $4 = batch size.
 */
export const MOVE_DUE_BATCH_SQL = `WITH due_created AS (
   SELECT request_id, updated_at, status FROM card_issue_requests
   WHERE status = 'CREATED' AND updated_at <= $2
   ORDER BY updated_at
   LIMIT $4
   FOR UPDATE SKIP LOCKED
 ), due_processing AS (
   SELECT request_id, updated_at, status FROM card_issue_requests
   WHERE status = 'PROCESSING' AND updated_at <= $3
   ORDER BY updated_at
   LIMIT $4
   FOR UPDATE SKIP LOCKED
 ), due AS (
   SELECT request_id, status AS previous_status
   FROM (SELECT * FROM due_created UNION ALL SELECT * FROM due_processing) d
   ORDER BY updated_at
   LIMIT $4
 ), moved AS (
   UPDATE card_issue_requests r
   SET status = CASE WHEN r.status = 'CREATED' THEN 'PROCESSING'
                     WHEN r.form_factor = 'VIRTUAL' THEN 'READY'
                     ELSE 'PLASTIC_READY' END,
       status_sequence = r.status_sequence + 1,
       updated_at = $1
   FROM due WHERE r.request_id = due.request_id
   RETURNING r.request_id, r.status, r.status_sequence, due.previous_status
 ), history AS (
   INSERT INTO card_issue_status_history (request_id, status, source, at)
   SELECT request_id, status, 'scheduler', $1 FROM moved
 ), ${webhookEvents(`SELECT request_id, 'card_issue.status_changed' AS event_type, 1 AS ord,
          status_sequence AS sequence,
          ${webhookEventData('status', 'previous_status', "'scheduler'", 'NULL::text')} AS data,
          $1::timestamptz AS occurred_at, NULL::jsonb AS trace_context
   FROM moved`)}, superseded AS (
   ${supersedeOlderStatuses('moved')}
 )
 ${insertOutboxMessage(
   'operation.status',
   `jsonb_build_object('requestId', request_id, 'status', status, 'sequence', status_sequence)`,
   'moved',
   // A move of the scheduler's is no request's: its delivery starts a trace of its own.
   'NULL',
 )}
 RETURNING request_id`;

/**
 * The operation ids of the requests $1 (text[]) as far as the outbox recorded them; null for a
 * request whose operation is not created yet.
 */
export const SELECT_OPERATION_IDS_SQL = `SELECT request_id AS "requestId", operation_id AS "operationId"
 FROM card_issue_requests WHERE request_id = ANY($1::text[])`;

/** Records the id the operation service gave request $1: $2. */
export const RECORD_OPERATION_ID_SQL = `UPDATE card_issue_requests SET operation_id = $2 WHERE request_id = $1`;

/**
 * Third-party holders on their way to the user service (card_issue_holder_creations; docs/
 * docs/decisions/0008-third-party-holder-created-idempotently.md). Claimed before the user is
 * created ($1 key, $2 holder as sent), unless the
 * sweeper holds the key: then no row comes back. A sweeper whose lease ran out loses the key
 * (its renewal finds it gone). The database's clock dates the claim, the clock the sweeper (on
 * any replica) compares it with.
 */
export const CLAIM_HOLDER_CREATION_SQL = `INSERT INTO card_issue_holder_creations AS h (idempotency_key, holder, touched_at)
 VALUES ($1::text, $2::jsonb, clock_timestamp())
 ON CONFLICT (idempotency_key) DO UPDATE SET touched_at = clock_timestamp(), sweep_until = NULL, swept_by = NULL
   WHERE h.sweep_until IS NULL OR h.sweep_until < clock_timestamp()
 RETURNING idempotency_key`;

/**
 * The sweeper ($3, a random id) takes the oldest creation left for $1 ms without its request
 * stored, for $2 ms (a lease: a sweeper that dies gives it up); SKIP LOCKED keeps two replicas
 * off one row.
 */
export const CLAIM_ABANDONED_HOLDER_SQL = `UPDATE card_issue_holder_creations h
 SET sweep_until = clock_timestamp() + $2 * interval '1 millisecond', swept_by = $3::uuid
 WHERE h.idempotency_key = (
   SELECT c.idempotency_key FROM card_issue_holder_creations c
   WHERE c.touched_at < clock_timestamp() - $1 * interval '1 millisecond'
     AND (c.sweep_until IS NULL OR c.sweep_until < clock_timestamp())
   ORDER BY c.touched_at
   LIMIT 1
   FOR UPDATE SKIP LOCKED)
 RETURNING h.idempotency_key AS "key", h.holder`;

/** Whether any stored request has user $1 as its holder (ix_card_issue_requests_holder). */
export const HOLDER_REFERENCED_SQL = `SELECT EXISTS (SELECT 1 FROM card_issue_requests WHERE holder_user_id = $1) AS referenced`;

/** Sweeper $2 is done with key $1, if the row is still its own (not taken over after its lease). */
export const FORGET_HOLDER_CREATION_SQL = `DELETE FROM card_issue_holder_creations
 WHERE idempotency_key = $1 AND swept_by = $2::uuid`;

/** Sweeper $2 renews its lease on key $1 for $3 ms; no row: another sweeper took it over. */
export const RENEW_HOLDER_SWEEP_SQL = `UPDATE card_issue_holder_creations
 SET sweep_until = clock_timestamp() + $3 * interval '1 millisecond'
 WHERE idempotency_key = $1 AND swept_by = $2::uuid RETURNING idempotency_key`;

/**
 * The scheduler's backlog for the metrics (read at scrape time, not per request): how many
 * requests are due ($1 = CREATED at or before this are due, $2 = PROCESSING at or before this,
 * each kind counted up to $3) and how long the oldest has been due, in seconds (0: none).
 * Range scans of the status index, each stopping at $3 rows; the oldest of each kind is the
 * index's first entry.
 */
export const SELECT_DUE_BACKLOG_SQL = `SELECT
   ((SELECT count(*) FROM (SELECT 1 FROM card_issue_requests
      WHERE status = 'CREATED' AND updated_at <= $1 LIMIT $3) c)
    + (SELECT count(*) FROM (SELECT 1 FROM card_issue_requests
      WHERE status = 'PROCESSING' AND updated_at <= $2 LIMIT $3) p))::int AS due,
   greatest(0,
     extract(epoch FROM $1::timestamptz - (SELECT min(updated_at) FROM card_issue_requests WHERE status = 'CREATED')),
     extract(epoch FROM $2::timestamptz - (SELECT min(updated_at) FROM card_issue_requests WHERE status = 'PROCESSING'))
   )::float8 AS "oldestDueSeconds"`;
