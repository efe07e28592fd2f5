import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Clients with their passport, addresses and account. One client per passport and one
 * account per number are constraints, so concurrent registrations cannot both win.
 */
export class CreateClients1795394200000 implements MigrationInterface {
  name = 'CreateClients1795394200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const address = (prefix: string) => `
        "${prefix}_country" varchar(50) NOT NULL,
        "${prefix}_region" varchar(50) NOT NULL,
        "${prefix}_city" varchar(120) NOT NULL,
        "${prefix}_street" varchar(120) NOT NULL,
        "${prefix}_building" varchar(20) NOT NULL,
        "${prefix}_apartment" varchar(20) NOT NULL,`;
    await queryRunner.query(`
      CREATE TABLE "clients" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "last_name" varchar(35) NOT NULL,
        "first_name" varchar(35) NOT NULL,
        "middle_name" varchar(35) NOT NULL,
        "gender" varchar(6) NOT NULL,
        "client_type" varchar(2) NOT NULL,
        "bankrupt_individual" boolean NOT NULL,
        "bankrupt_entrepreneur" boolean NOT NULL,
        "embossing_name" varchar(30) NOT NULL,
        "phone" varchar(11) NOT NULL,
        "email" varchar(50) NOT NULL,
        "birth_date" date NOT NULL,
        "birth_place" varchar(120) NOT NULL,
        "passport_issue_date" date NOT NULL,
        "passport_series" char(4) NOT NULL,
        "passport_number" char(6) NOT NULL,
        ${address('actual')}
        ${address('registration')}
        "manager_pin" varchar(6) NOT NULL,
        "account_number" char(20) NOT NULL,
        "account_currency" varchar(3) NOT NULL,
        "accounting_mode" integer NOT NULL DEFAULT 100,
        "registered_at" timestamptz NOT NULL,
        "actualized_at" timestamptz NOT NULL,
        CONSTRAINT "PK_clients" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_clients_passport" UNIQUE ("passport_series", "passport_number"),
        CONSTRAINT "UQ_clients_account_number" UNIQUE ("account_number"),
        CONSTRAINT "FK_clients_manager" FOREIGN KEY ("manager_pin") REFERENCES "managers" ("pin"),
        CONSTRAINT "CHK_clients_gender" CHECK ("gender" IN ('MALE', 'FEMALE')),
        CONSTRAINT "CHK_clients_client_type" CHECK ("client_type" = 'UP'),
        CONSTRAINT "CHK_clients_account_currency" CHECK ("account_currency" IN ('RUR', 'USD', 'EUR')),
        CONSTRAINT "CHK_clients_account_number" CHECK ("account_number" ~ '^40702(810|840|978)[0-9]{12}$'),
        CONSTRAINT "CHK_clients_passport" CHECK ("passport_series" ~ '^[0-9]{4}$' AND "passport_number" ~ '^[0-9]{6}$')
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_clients_manager_pin" ON "clients" ("manager_pin")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "clients"`);
  }
}
