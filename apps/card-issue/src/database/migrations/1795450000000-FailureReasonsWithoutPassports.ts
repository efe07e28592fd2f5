import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A refused third-party holder used to fail its request with the user service's message, which
 * names the holder's passport series and number. Rewrites that reason wherever it was kept (the
 * request, a replayable answer, a webhook event not yet delivered) as it now reads; not undone.
 */
const OLD_REASON =
  'The card holder could not be created in the user service: A user with passport series [0-9]+ and number [0-9]+ is already registered';
const NEW_REASON =
  'The card holder could not be created in the user service: it conflicts with an existing user';

export class FailureReasonsWithoutPassports1795450000000 implements MigrationInterface {
  name = 'FailureReasonsWithoutPassports1795450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE card_issue_requests SET failure_reason = $2 WHERE failure_reason ~ ('^' || $1 || '$')`,
      [OLD_REASON, NEW_REASON],
    );
    await queryRunner.query(
      `UPDATE card_issue_idempotency_keys SET response_body = regexp_replace(response_body, $1, $2, 'g')
        WHERE response_body ~ $1`,
      [OLD_REASON, NEW_REASON],
    );
    await queryRunner.query(
      `UPDATE webhook_deliveries SET data = regexp_replace(data::text, $1, $2, 'g')::jsonb
        WHERE data::text ~ $1`,
      [OLD_REASON, NEW_REASON],
    );
  }

  async down(): Promise<void> {
    // The passports are not written back.
  }
}
