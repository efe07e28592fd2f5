import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed webhooks (issue 17; docs/webhooks.md). Raw-SQL tables like the holder creations: no
 * entities, so `migration-generate` leaves them alone.
 *
 * - webhook_subscriptions: a receiver's URL, the event types it wants, its signing secret and,
 *   for a while after a rotation, the previous one (both sign until previous_secret_expires_at).
 * - webhook_deliveries: one event for one subscription, written in the transaction of the change
 *   it reports (a transactional outbox of its own, so a receiver never shares a queue with the
 *   operation service). The event (id, type, per-request sequence, data, instant) is stored and
 *   the body built from it identically on every attempt. PENDING until DELIVERED, or DEAD after
 *   WEBHOOK_MAX_ATTEMPTS (redelivered on request). In order per subscription and request: only
 *   the oldest open delivery of a (subscription, request) pair goes out.
 * - webhook_delivery_attempts: the delivery log (status code, latency, error, a short prefix of
 *   the response body), deleted with its delivery.
 *
 * Partial indexes over the rows each statement reads, as in the operation outbox: the claim's
 * due order, the per-pair head check, the purge of delivered rows, the log per subscription.
 */
export class Webhooks1795440000000 implements MigrationInterface {
  name = 'Webhooks1795440000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_subscriptions (
        id uuid PRIMARY KEY,
        url varchar(2048) NOT NULL,
        event_types text[] NOT NULL,
        description varchar(500) NULL,
        enabled boolean NOT NULL DEFAULT true,
        secret varchar(100) NOT NULL,
        previous_secret varchar(100) NULL,
        previous_secret_expires_at timestamptz NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT ck_webhook_subscriptions_event_types CHECK (cardinality(event_types) > 0)
      )`);
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        subscription_id uuid NOT NULL
          CONSTRAINT fk_webhook_deliveries_subscription REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type varchar(40) NOT NULL,
        request_id varchar(20) NOT NULL,
        sequence int NOT NULL,
        data jsonb NOT NULL,
        occurred_at timestamptz NOT NULL,
        state varchar(12) NOT NULL DEFAULT 'PENDING',
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        locked_until timestamptz NULL,
        last_attempt_at timestamptz NULL,
        last_status_code int NULL,
        last_latency_ms int NULL,
        last_error varchar(500) NULL,
        trace_context jsonb NULL,
        created_at timestamptz NOT NULL,
        settled_at timestamptz NULL,
        CONSTRAINT uq_webhook_deliveries_event UNIQUE (subscription_id, event_id),
        CONSTRAINT ck_webhook_deliveries_state CHECK (state IN ('PENDING','DELIVERED','DEAD'))
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE state = 'PENDING'`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_open ON webhook_deliveries (subscription_id, request_id, id) WHERE state IN ('PENDING','DEAD')`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_settled ON webhook_deliveries (settled_at) WHERE state = 'DELIVERED'`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_log ON webhook_deliveries (subscription_id, id)`,
    );
    await queryRunner.query(`
      CREATE TABLE webhook_delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id bigint NOT NULL
          CONSTRAINT fk_webhook_delivery_attempts_delivery REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt int NOT NULL,
        at timestamptz NOT NULL,
        status_code int NULL,
        latency_ms int NOT NULL,
        error varchar(500) NULL,
        response_prefix varchar(256) NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, attempt)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_delivery_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhook_subscriptions`);
  }
}
