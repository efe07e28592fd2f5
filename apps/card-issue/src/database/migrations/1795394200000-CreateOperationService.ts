import { MigrationInterface, QueryRunner } from 'typeorm';

/** Schema of the reference operation service: one operation per card issue request. */
export class CreateOperationService1795394200000 implements MigrationInterface {
  name = 'CreateOperationService1795394200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS operation_service`);
    await queryRunner.query(`
      CREATE TABLE operation_service.operations (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        request_id varchar(20) NOT NULL,
        card_owner varchar(6) NOT NULL,
        holder_user_id varchar(6),
        form_factor varchar(10) NOT NULL,
        status varchar(20) NOT NULL,
        last_sequence bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_operation_service_operations PRIMARY KEY (id),
        CONSTRAINT uq_operation_service_operations_request UNIQUE (request_id),
        CONSTRAINT ck_operation_service_operations_form_factor
          CHECK (form_factor IN ('VIRTUAL', 'PLASTIC')),
        CONSTRAINT ck_operation_service_operations_status
          CHECK (status IN ('CREATED', 'PROCESSING', 'READY', 'PLASTIC_READY', 'FAILED'))
      )
    `);
    await queryRunner.query(
      `CREATE INDEX ix_operation_service_operations_owner ON operation_service.operations (card_owner, created_at DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_operation_service_operations_holder ON operation_service.operations (holder_user_id, created_at DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE operation_service.operations`);
    await queryRunner.query(`DROP SCHEMA IF EXISTS operation_service`);
  }
}
