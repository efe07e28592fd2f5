import { deliveryTableSql } from '@bank/shared/delivery';

/**
 * Every statement on webhook_deliveries and webhook_delivery_attempts, run by
 * WebhookDeliveriesRepository; the event writes are fragments the card issue statements embed
 * (card-issues.sql.ts), so an event is stored in the statement of the change it reports. The
 * queue's mechanism (claim under lease, backoff, dead letters, purge, backlog; database clock)
 * is @bank/shared/delivery's, as for the operation outbox; this file says what is the webhooks'.
 *
 * A delivery (one event for one subscription) is PENDING until DELIVERED, or DEAD after
 * WEBHOOK_MAX_ATTEMPTS failed attempts (redelivered through the API). A (subscription, request)
 * pair's PENDING and DEAD deliveries are its open ones; only the oldest open delivery of a pair
 * can go out, so a receiver gets a request's events in order, and a dead one holds back the rest
 * of that request for that subscription only. A failed head pushes the due time of the rest of
 * its pair to its own (never, while DEAD), so the due index holds only deliveries that can go.
 */

/** webhook_deliveries as a delivery queue: a (subscription, request) pair is one lane. */
export const WEBHOOK_TABLE = deliveryTableSql({
  table: 'webhook_deliveries',
  lane: ['subscription_id', 'request_id'],
  settled: ['DELIVERED'],
});

/**
 * Stores the events of `events` for every enabled subscription whose event_types contain their
 * type: one row per (event, subscription), none when no subscription wants it (then the cost is
 * a scan of webhook_subscriptions, which holds a handful of rows). `events` is a CTE with
 * request_id, event_type, ord (order of the events of one change), sequence, data
 * (StoredWebhookEventData), occurred_at, trace_context and event_id; it must be MATERIALIZED so
 * an event keeps one id (gen_random_uuid) across its subscriptions. A new delivery is due no
 * earlier than the open deliveries of its pair (see above). Rows are inserted in pair order, so
 * the id order of one pair is the order of its events.
 */
export function insertWebhookDeliveries(events: string): string {
  return `INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, request_id, sequence, data,
                                  occurred_at, next_attempt_at, trace_context, created_at)
   SELECT s.id, e.event_id, e.event_type, e.request_id, e.sequence, e.data, e.occurred_at,
          ${WEBHOOK_TABLE.dueBehindLane(['s.id', 'e.request_id'])},
          e.trace_context, now()
   FROM ${events} e
   JOIN webhook_subscriptions s ON s.enabled AND e.event_type = ANY (s.event_types)
   ORDER BY e.request_id, e.ord, s.id`;
}

/**
 * The webhook events of a change (docs/webhooks.md "Events"), as the CTEs `events` and
 * `webhooks`: `events` is a SELECT with the columns insertWebhookDeliveries reads except
 * event_id, which is added here; MATERIALIZED so each event gets one id for all its
 * subscriptions. Data keys are StoredWebhookEventData's (webhook-events.model.ts).
 */
export function webhookEvents(events: string): string {
  return `events AS MATERIALIZED (
   SELECT ev.*, gen_random_uuid() AS event_id FROM (${events}) ev
 ), webhooks AS (
   ${insertWebhookDeliveries('events')}
 )`;
}

/** The data column of a webhook event: StoredWebhookEventData, from SQL expressions. */
export function webhookEventData(
  status: string,
  previousStatus: string,
  source: string,
  failureReason: string,
): string {
  return `jsonb_build_object('status', ${status}, 'previousStatus', ${previousStatus},
                            'source', ${source}, 'failureReason', ${failureReason})`;
}

/**
 * Claims up to $1 due deliveries under a lease of $2 ms and counts the attempt (claimDue, by
 * subscription), with what the sender needs: the subscription's URL, the secrets that sign now
 * (the current one, and the previous one while its rotation overlap runs) and its run of failures.
 *
 * Subscriptions are served in turn (docs/webhooks.md "Fairness between subscriptions"): each
 * one's candidates are its own oldest due pair heads, read by its own probe of
 * ix_webhook_deliveries_due_by_subscription, and the claim takes every subscription's first
 * before any subscription's second; within a round the answering subscriptions (their latest
 * attempt succeeded) come first, then oldest due first. A subscription takes no more than its
 * free slots in this process: $5 (WEBHOOK_SUBSCRIPTION_CONCURRENCY) while it is answering, else
 * 1 (a new subscription until it answers, a failing one), less what it has in flight here ($3
 * uuid[] and $4 int[]: the subscriptions with deliveries in flight and how many). A subscription
 * in its own back-off (retry_at) or disabled automatically is not served at all, and the failing
 * ones together take at most $6 deliveries: receivers that do not answer, however many
 * subscriptions point at them, never hold the slots an answering one could use. Rows are
 * ClaimedWebhookDelivery, in id order.
 */
export const CLAIM_WEBHOOK_DELIVERIES_SQL = WEBHOOK_TABLE.claimDue({
  with: `busy AS (
   SELECT b.subscription_id, b.in_flight FROM unnest($3::uuid[], $4::int[]) AS b(subscription_id, in_flight)
 )`,
  groups: {
    column: 'subscription_id',
    select: `SELECT f.grp, f.failing, f.answering, f.take FROM (
       SELECT s.id AS grp, s.consecutive_failures > 0 AS failing, s.answering,
              CASE WHEN s.answering THEN $5::int ELSE 1 END - coalesce(b.in_flight, 0) AS take
       FROM webhook_subscriptions s LEFT JOIN busy b ON b.subscription_id = s.id
       WHERE s.auto_disabled_at IS NULL AND (s.retry_at IS NULL OR s.retry_at <= now())
         AND (s.consecutive_failures = 0 OR $6::int > 0)
     ) f WHERE f.take > 0`,
  },
  limit: '$1',
  leaseMs: '$2',
  pick: (candidates) => `SELECT r.id FROM (
       SELECT c.id, c.n, c.answering, c.next_attempt_at, c.failing,
              count(*) FILTER (WHERE c.failing) OVER (ORDER BY c.n, c.next_attempt_at, c.id) AS failing_rank
       FROM (${candidates}) c
     ) r
     WHERE NOT r.failing OR r.failing_rank <= $6::int
     ORDER BY r.n, r.answering DESC, r.next_attempt_at, r.id
     LIMIT $1`,
  join: { from: 'webhook_subscriptions s', on: 's.id = q.subscription_id' },
  returning: `q.id::text AS id, q.subscription_id AS "subscriptionId", q.event_id AS "eventId",
             q.event_type AS "eventType", q.request_id AS "requestId", q.sequence, q.data,
             floor(extract(epoch FROM q.occurred_at) * 1000)::float8 AS "occurredAt",
             q.attempts, q.trace_context AS "traceContext", s.url,
             array_remove(ARRAY[s.secret,
               CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END], NULL) AS secrets,
             s.consecutive_failures AS "subscriptionFailures"`,
});

/**
 * The log line of attempt $2 of delivery $1: started at $3, answered $4 (null: no answer) after
 * $5 ms, failed with $6 (null: delivered), the first characters of the response body $7.
 */
const INSERT_ATTEMPT = `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, status_code, latency_ms, error, response_prefix)
   SELECT id, $2::int, $3::timestamptz, $4::int, $5::int, $6::text, $7::text FROM webhook_deliveries WHERE id = $1`;

/** The columns of the last attempt (log columns as INSERT_ATTEMPT). */
const LAST_ATTEMPT = `last_attempt_at = $3::timestamptz, last_status_code = $4::int, last_latency_ms = $5::int`;

/**
 * Delivery $1 of subscription $8 answered 2xx on attempt $2 (log columns as INSERT_ATTEMPT). Only
 * a PENDING row changes (a row redelivered by a replica whose lease ran out is already
 * DELIVERED); the attempt is logged either way. The subscription is answering, and its run of
 * failures, if it had one, ends (a row already answering is left alone: no write per delivery).
 */
export const MARK_WEBHOOK_DELIVERED_SQL = `WITH upd AS (
   ${WEBHOOK_TABLE.markDelivered({ id: '$1', set: LAST_ATTEMPT, onlyPending: true })}
 ), recovered AS (
   UPDATE webhook_subscriptions
   SET answering = true, consecutive_failures = 0, failing_since = NULL, retry_at = NULL
   WHERE id = $8::uuid AND (NOT answering OR consecutive_failures > 0 OR retry_at IS NOT NULL)
 )
 ${INSERT_ATTEMPT}`;

/**
 * An attempt for subscription $1, started at $2, failed: its run of failures grows by one (and
 * begins at $2 unless one is running), and none of its deliveries is claimed for $3 ms (its own
 * back-off, whatever request they belong to). When the run began more than $4 hours ago ($4 = 0:
 * never), the subscription is disabled (enabled false, auto_disabled_at now) and its deliveries
 * wait until it is enabled again. Answers {consecutiveFailures, failingSince, disabled}, disabled
 * being true only for the failure that disabled it; no row when it was deleted meanwhile.
 */
export const RECORD_WEBHOOK_SUBSCRIPTION_FAILURE_SQL = `WITH before AS (
   SELECT id, ($4::int > 0 AND auto_disabled_at IS NULL AND failing_since IS NOT NULL
               AND failing_since <= now() - make_interval(hours => $4::int)) AS disable
   FROM webhook_subscriptions WHERE id = $1::uuid
 ), changed AS (
   UPDATE webhook_subscriptions s
   SET answering = false, consecutive_failures = s.consecutive_failures + 1,
       failing_since = coalesce(s.failing_since, $2::timestamptz),
       retry_at = greatest(s.retry_at, now() + make_interval(secs => $3::double precision / 1000)),
       enabled = CASE WHEN before.disable THEN false ELSE s.enabled END,
       auto_disabled_at = CASE WHEN before.disable THEN now() ELSE s.auto_disabled_at END,
       updated_at = CASE WHEN before.disable THEN now() ELSE s.updated_at END
   FROM before WHERE s.id = before.id
   RETURNING s.consecutive_failures AS "consecutiveFailures",
             floor(extract(epoch FROM s.failing_since) * 1000)::float8 AS "failingSince",
             before.disable AS disabled
 )
 SELECT * FROM changed`;

/**
 * Attempt $2 of delivery $1 failed (log columns as INSERT_ATTEMPT): DEAD once the delivery made
 * $9 attempts, otherwise due again in $8 ms; the later deliveries of its pair are due no earlier
 * (settleFailure). Only a PENDING row changes. Returns the state it ends in as {state} (no
 * row: it was settled elsewhere).
 */
export const SETTLE_WEBHOOK_FAILURE_SQL = WEBHOOK_TABLE.settleFailure({
  id: '$1',
  delayMs: '$8',
  maxAttempts: '$9',
  set: `${LAST_ATTEMPT}, last_error = $6::text`,
  onlyPending: true,
  with: `logged AS (
   ${INSERT_ATTEMPT}
 )`,
});

/**
 * Redelivery of delivery $2 of subscription $1: when DEAD, PENDING again, due now, attempts
 * from zero, and the open deliveries held behind it in its pair due now too (reviveDead).
 * Answers {outcome}: 'redelivered', 'not-dead' or 'not-found' (no such delivery of that
 * subscription).
 */
export const REDELIVER_WEBHOOK_DELIVERY_SQL = `WITH target AS (
   SELECT id, state, subscription_id, request_id FROM webhook_deliveries
   WHERE id = $2::bigint AND subscription_id = $1::uuid
   FOR UPDATE
 ), dead AS (
   SELECT id, subscription_id, request_id FROM target WHERE state = 'DEAD'
 ), revived AS (
   ${WEBHOOK_TABLE.reviveDead('dead')}
 )
 SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM target) THEN 'not-found'
             WHEN (SELECT state FROM target) = 'DEAD' THEN 'redelivered'
             ELSE 'not-dead' END AS outcome`;

/**
 * The delivery log of subscription $1, newest first: deliveries in state $2 (null: any), $3 per
 * page from $4, each with its attempts in the order they were made. Instants leave as epoch milliseconds (as in
 * card-issues.sql.ts); next_attempt_at only while PENDING, and null for a delivery held behind a
 * DEAD one of its pair (it goes when that one is redelivered). Reads ix_webhook_deliveries_log.
 */
export const SELECT_WEBHOOK_DELIVERY_LOG_SQL = `SELECT d.id::text AS id, d.event_id AS "eventId", d.event_type AS "eventType",
   d.request_id AS "requestId", d.sequence, d.state, d.attempts,
   CASE WHEN d.state = 'PENDING' AND d.next_attempt_at < 'infinity'
        THEN floor(extract(epoch FROM d.next_attempt_at) * 1000)::float8 END AS "nextAttemptAt",
   floor(extract(epoch FROM d.last_attempt_at) * 1000)::float8 AS "lastAttemptAt",
   d.last_status_code AS "lastStatusCode", d.last_latency_ms AS "lastLatencyMs", d.last_error AS "lastError",
   floor(extract(epoch FROM d.created_at) * 1000)::float8 AS "createdAt",
   CASE WHEN d.state = 'DELIVERED' THEN floor(extract(epoch FROM d.settled_at) * 1000)::float8 END AS "deliveredAt",
   (SELECT coalesce(json_agg(json_build_object(
             'attempt', a.attempt, 'at', floor(extract(epoch FROM a.at) * 1000),
             'statusCode', a.status_code, 'latencyMs', a.latency_ms, 'error', a.error,
             'responsePrefix', a.response_prefix) ORDER BY a.id), '[]')
      FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS "attemptLog"
 FROM webhook_deliveries d
 WHERE d.subscription_id = $1::uuid AND ($2::text IS NULL OR d.state = $2::text)
 ORDER BY d.id DESC
 LIMIT $3 OFFSET $4`;

/** Deletes up to $2 deliveries DELIVERED more than $1 ms ago (their attempts with them); returns how many as n. */
export const PURGE_DELIVERED_WEBHOOKS_SQL = WEBHOOK_TABLE.purgeSettled;

/** The backlog for the metrics: PENDING and DEAD deliveries, each counted up to $1, and the oldest's age. */
export const SELECT_WEBHOOK_BACKLOG_SQL = WEBHOOK_TABLE.backlog;
