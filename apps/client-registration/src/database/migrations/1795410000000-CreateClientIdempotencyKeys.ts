import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys of POST /api/clients (the shared lib @bank/shared/idempotency runs the
 * statements): the body hash a key is bound to, the lease of the request holding it, and the
 * response exactly as it was sent.
 */
export class CreateClientIdempotencyKeys1795410000000 implements MigrationInterface {
  name = 'CreateClientIdempotencyKeys1795410000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE client_idempotency_keys (
        key varchar(255) PRIMARY KEY,
        request_hash char(64) NOT NULL,
        holder uuid NULL,
        locked_until timestamptz NULL,
        response_status smallint NULL,
        response_body text NULL,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_client_idempotency_keys_created ON client_idempotency_keys (created_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE client_idempotency_keys`);
  }
}
