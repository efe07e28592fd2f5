/**
 * The statements on webhook_subscriptions alone, run by WebhookSubscriptionsRepository. (The
 * fan-out that reads the enabled subscriptions of an event type lives in the card issue
 * statements, card-issues.sql.ts, and the claim that reads a delivery's secrets in
 * webhook-deliveries.sql.ts: each runs in the statement it belongs to.)
 *
 * Instants come from the database clock, now(): previous_secret_expires_at is compared with
 * now() when a delivery is signed, on whichever replica sends it, so the overlap a rotation
 * grants is measured on the one clock every replica agrees on. They are read back as ISO 8601
 * UTC text with milliseconds, the layout of the event bodies. (UPDATE and DELETE sit in a CTE:
 * at the top level TypeORM would return them as [rows, count].)
 */

const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${ISO_UTC})`;

/** The columns of a subscription as WebhookSubscriptionRow; never the secrets. */
const SUBSCRIPTION_COLUMNS = `id::text AS id, url, event_types AS "eventTypes", description, enabled,
       consecutive_failures AS "consecutiveFailures", ${iso('failing_since')} AS "failingSince",
       ${iso('auto_disabled_at')} AS "autoDisabledAt",
       ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt"`;

/**
 * Serialises the creations of subscriptions (a transaction-scoped advisory lock), so that the
 * count INSERT_WEBHOOK_SUBSCRIPTION_SQL checks, read by the next statement of the same
 * transaction, cannot be passed by two creations at once.
 */
export const LOCK_WEBHOOK_SUBSCRIPTION_CREATION_SQL = `SELECT pg_advisory_xact_lock(hashtext('webhook_subscriptions:create'))`;

/**
 * $1 id, $2 url, $3 event types, $4 description, $5 enabled, $6 secret; only while fewer than
 * $7 subscriptions exist (no row: the cap is reached). Run after
 * LOCK_WEBHOOK_SUBSCRIPTION_CREATION_SQL in one transaction.
 */
export const INSERT_WEBHOOK_SUBSCRIPTION_SQL = `INSERT INTO webhook_subscriptions
   (id, url, event_types, description, enabled, secret, created_at, updated_at)
 SELECT $1::uuid, $2::text, $3::text[], $4::text, $5::boolean, $6::text, now(), now()
 WHERE (SELECT count(*) FROM webhook_subscriptions) < $7::int
 RETURNING ${SUBSCRIPTION_COLUMNS}`;

/** Newest first, $1 rows from $2; id breaks ties between subscriptions of one instant. */
export const SELECT_WEBHOOK_SUBSCRIPTIONS_SQL = `SELECT ${SUBSCRIPTION_COLUMNS}
 FROM webhook_subscriptions
 ORDER BY created_at DESC, id
 LIMIT $1 OFFSET $2`;

export const SELECT_WEBHOOK_SUBSCRIPTION_BY_ID_SQL = `SELECT ${SUBSCRIPTION_COLUMNS}
 FROM webhook_subscriptions WHERE id = $1::uuid`;

/**
 * Changes the fields that were sent: $2 url, $3 event types, $5 description (only when $4 is
 * true, since null clears it), $6 enabled; a null keeps the stored value. Disabling takes effect
 * for the events written after it: the deliveries already written for it still go out (they
 * report changes that happened while it was enabled). Enabling a subscription the service
 * disabled (auto_disabled_at) is a fresh start: its run of failures and its back-off end, and
 * its deliveries held meanwhile go out.
 */
export const UPDATE_WEBHOOK_SUBSCRIPTION_SQL = `WITH changed AS (
 UPDATE webhook_subscriptions
 SET url = COALESCE($2::text, url),
     event_types = COALESCE($3::text[], event_types),
     description = CASE WHEN $4::boolean THEN $5::text ELSE description END,
     enabled = COALESCE($6::boolean, enabled),
     answering = CASE WHEN $6::boolean AND auto_disabled_at IS NOT NULL THEN false ELSE answering END,
     consecutive_failures = CASE WHEN $6::boolean AND auto_disabled_at IS NOT NULL THEN 0
                                 ELSE consecutive_failures END,
     failing_since = CASE WHEN $6::boolean AND auto_disabled_at IS NOT NULL THEN NULL
                          ELSE failing_since END,
     retry_at = CASE WHEN $6::boolean AND auto_disabled_at IS NOT NULL THEN NULL ELSE retry_at END,
     auto_disabled_at = CASE WHEN $6::boolean THEN NULL ELSE auto_disabled_at END,
     updated_at = now()
 WHERE id = $1::uuid
 RETURNING ${SUBSCRIPTION_COLUMNS}
) SELECT * FROM changed`;

/** Its deliveries and their attempts go with it (ON DELETE CASCADE). Returns {id} when it existed. */
export const DELETE_WEBHOOK_SUBSCRIPTION_SQL = `WITH deleted AS (
 DELETE FROM webhook_subscriptions WHERE id = $1::uuid RETURNING id::text AS id
) SELECT * FROM deleted`;

/**
 * $2 becomes the secret; the one in force until now signs alongside it for $3 hours (0: not at
 * all). A rotation during an overlap ends the older overlap: only the secret just replaced stays
 * valid, so a receiver never has to try more than two. Returns {previousSecretExpiresAt}.
 */
export const ROTATE_WEBHOOK_SECRET_SQL = `WITH rotated AS (
 UPDATE webhook_subscriptions
 SET previous_secret = secret,
     secret = $2::text,
     previous_secret_expires_at = now() + make_interval(hours => $3::int),
     updated_at = now()
 WHERE id = $1::uuid
 RETURNING ${iso('previous_secret_expires_at')} AS "previousSecretExpiresAt"
) SELECT * FROM rotated`;
