import { MigrationInterface, QueryRunner } from 'typeorm';

/** Schema of the reference user service; passport uniqueness is a constraint, so it holds under races. */
export class CreateUserService1795394100000 implements MigrationInterface {
  name = 'CreateUserService1795394100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS user_service`);
    await queryRunner.query(`
      CREATE TABLE user_service.users (
        id varchar(6) NOT NULL,
        first_name varchar(150) NOT NULL,
        middle_name varchar(150),
        last_name varchar(150) NOT NULL,
        gender varchar(6) NOT NULL,
        client_type varchar(2) NOT NULL,
        bankrupt_individual boolean NOT NULL,
        bankrupt_entrepreneur boolean NOT NULL,
        phone varchar(11) NOT NULL,
        email varchar(150) NOT NULL,
        embossing_name varchar(150) NOT NULL,
        birth_date varchar(10) NOT NULL,
        birth_place varchar(150) NOT NULL,
        issue_date varchar(10) NOT NULL,
        passport_series char(4) NOT NULL,
        passport_number char(6) NOT NULL,
        actual_address jsonb NOT NULL,
        registration_address jsonb NOT NULL,
        account varchar(3) NOT NULL,
        manager_pin varchar(20) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_user_service_users PRIMARY KEY (id),
        CONSTRAINT uq_user_service_users_passport UNIQUE (passport_series, passport_number),
        CONSTRAINT ck_user_service_users_id CHECK (id ~ '^X[A-Z0-9]{5}$'),
        CONSTRAINT ck_user_service_users_gender CHECK (gender IN ('MALE', 'FEMALE')),
        CONSTRAINT ck_user_service_users_client_type CHECK (client_type IN ('UP', 'FL', 'IP')),
        CONSTRAINT ck_user_service_users_account CHECK (account IN ('RUR', 'USD', 'EUR'))
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE user_service.users`);
    await queryRunner.query(`DROP SCHEMA IF EXISTS user_service`);
  }
}
