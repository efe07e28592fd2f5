import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys get a lease (holder, locked_until), so a key whose holder died is taken over
 * once the lease runs out, and keep the response as the exact text that was sent (replays are
 * byte-identical; jsonb reordered the members). Responses stored before this migration keep
 * their jsonb text; keys left in progress by a crashed process become free at once.
 */
export class IdempotencyKeyLeases1795410000000 implements MigrationInterface {
  name = 'IdempotencyKeyLeases1795410000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE card_issue_idempotency_keys
        ADD COLUMN holder uuid NULL,
        ADD COLUMN locked_until timestamptz NULL,
        ADD COLUMN response_status smallint NULL,
        ADD COLUMN response_body text NULL`);
    await queryRunner.query(`
      UPDATE card_issue_idempotency_keys
      SET response_status = CASE WHEN response IS NULL THEN NULL ELSE 201 END,
          response_body = response::text,
          locked_until = CASE WHEN response IS NULL THEN now() ELSE NULL END`);
    await queryRunner.query(`ALTER TABLE card_issue_idempotency_keys DROP COLUMN response`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE card_issue_idempotency_keys ADD COLUMN response jsonb NULL`,
    );
    await queryRunner.query(
      `UPDATE card_issue_idempotency_keys SET response = response_body::jsonb WHERE response_body IS NOT NULL`,
    );
    await queryRunner.query(`
      ALTER TABLE card_issue_idempotency_keys
        DROP COLUMN holder, DROP COLUMN locked_until, DROP COLUMN response_status, DROP COLUMN response_body`);
  }
}
