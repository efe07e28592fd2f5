import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Third-party holders being created in the user service
 * (docs/decisions/0008-third-party-holder-created-idempotently.md: the third-party
 * holder after a timeout). A row is written before the user service is asked to create the
 * holder and deleted in the statement that stores the card request; one left behind (the
 * answer was lost, the process died, the client never retried) is swept after
 * HOLDER_SWEEP_AFTER_MS: the user created for it is deleted unless a request holds it.
 */
export class HolderCreations1795430000000 implements MigrationInterface {
  name = 'HolderCreations1795430000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE card_issue_holder_creations (
        idempotency_key varchar(100) PRIMARY KEY,
        holder jsonb NOT NULL,
        touched_at timestamptz NOT NULL,
        sweep_until timestamptz NULL,
        swept_by uuid NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_card_issue_holder_creations_touched ON card_issue_holder_creations (touched_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE card_issue_holder_creations`);
  }
}
