import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A webhook subscription's health, and a claim that serves subscriptions in turn
 * (docs/webhooks.md "Fairness between subscriptions", "Automatic disabling"):
 *
 * - answering: its latest attempt succeeded (false for a new subscription until one does, and
 *   after a failure). The claim serves answering subscriptions first in each round and lets the
 *   others have one delivery in flight at a time.
 * - consecutive_failures, failing_since: the current run of failed attempts of the subscription
 *   (0 and null once an attempt succeeds); failing_since is when it began.
 * - retry_at: the subscription's own back-off after a failed attempt: none of its deliveries is
 *   claimed before it, whichever request they belong to.
 * - auto_disabled_at: when the service disabled it because its attempts had all failed for
 *   WEBHOOK_AUTO_DISABLE_HOURS; its deliveries wait until it is enabled again.
 *
 * The claim reads each subscription's due deliveries by their own index probe instead of one
 * due order over every subscription, so (subscription_id, next_attempt_at, id) replaces
 * (next_attempt_at, id) for the PENDING rows.
 */
export class WebhookSubscriptionHealth1795460000000 implements MigrationInterface {
  name = 'WebhookSubscriptionHealth1795460000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_subscriptions
        ADD COLUMN answering boolean NOT NULL DEFAULT false,
        ADD COLUMN consecutive_failures int NOT NULL DEFAULT 0,
        ADD COLUMN failing_since timestamptz NULL,
        ADD COLUMN retry_at timestamptz NULL,
        ADD COLUMN auto_disabled_at timestamptz NULL`);
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_due_by_subscription ON webhook_deliveries (subscription_id, next_attempt_at, id) WHERE state = 'PENDING'`,
    );
    await queryRunner.query(`DROP INDEX ix_webhook_deliveries_due`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE state = 'PENDING'`,
    );
    await queryRunner.query(`DROP INDEX ix_webhook_deliveries_due_by_subscription`);
    await queryRunner.query(`
      ALTER TABLE webhook_subscriptions
        DROP COLUMN answering,
        DROP COLUMN consecutive_failures,
        DROP COLUMN failing_since,
        DROP COLUMN retry_at,
        DROP COLUMN auto_disabled_at`);
  }
}
