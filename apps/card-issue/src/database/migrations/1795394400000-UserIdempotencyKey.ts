import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The reference user service remembers the Idempotency-Key a user was created with, so a
 * repeated create (a caller's retry after a timeout) answers that user instead of a passport
 * conflict. Unique, so two racing creates with one key make one user; NULL for keyless creates.
 */
export class UserIdempotencyKey1795394400000 implements MigrationInterface {
  name = 'UserIdempotencyKey1795394400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE user_service.users ADD COLUMN idempotency_key varchar(255)`,
    );
    await queryRunner.query(
      `ALTER TABLE user_service.users ADD CONSTRAINT uq_user_service_users_idempotency_key UNIQUE (idempotency_key)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE user_service.users DROP CONSTRAINT uq_user_service_users_idempotency_key`,
    );
    await queryRunner.query(`ALTER TABLE user_service.users DROP COLUMN idempotency_key`);
  }
}
