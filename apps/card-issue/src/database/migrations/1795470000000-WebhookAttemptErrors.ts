import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The errors of the webhook delivery log without network details (docs/webhooks.md "The
 * delivery log"). Earlier versions stored the socket error and the resolver's answer
 * (`ECONNREFUSED: connect ECONNREFUSED 10.0.0.7:5432`, `target refused (address-not-allowed):
 * db.internal resolves only to refused addresses (10.0.0.7)`, `timeout after 5000 ms`), which
 * the delivery log API handed to its clients; now an attempt records `HTTP <status>`,
 * `target refused`, `connection failed` or `timeout` only. This rewrites what was stored to the
 * same categories (publicAttemptError does the same when the log is read, for what a replica
 * not yet upgraded writes meanwhile). Not reversible: the details are gone.
 */
const CATEGORY = (column: string) => `CASE
  WHEN ${column} ~ '^HTTP [0-9]{3}$' THEN ${column}
  WHEN ${column} LIKE 'target refused%' THEN 'target refused'
  WHEN ${column} LIKE 'timeout%' THEN 'timeout'
  ELSE 'connection failed' END`;
const CATEGORIES = `('target refused', 'connection failed', 'timeout')`;

export class WebhookAttemptErrors1795470000000 implements MigrationInterface {
  name = 'WebhookAttemptErrors1795470000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE webhook_deliveries SET last_error = ${CATEGORY('last_error')}
      WHERE last_error IS NOT NULL AND last_error NOT IN ${CATEGORIES}
        AND last_error !~ '^HTTP [0-9]{3}$'`);
    await queryRunner.query(`
      UPDATE webhook_delivery_attempts SET error = ${CATEGORY('error')}
      WHERE error IS NOT NULL AND error NOT IN ${CATEGORIES} AND error !~ '^HTTP [0-9]{3}$'`);
  }

  async down(): Promise<void> {
    // The details are not kept anywhere: nothing to restore.
  }
}
