import { MigrationInterface, QueryRunner } from 'typeorm';

/** The five managers of docs/api/client-registration.md; registration requires one of their PINs. */
export class CreateManagers1795394100000 implements MigrationInterface {
  name = 'CreateManagers1795394100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "managers" (
        "pin" varchar(6) NOT NULL,
        "full_name" varchar(100) NOT NULL,
        CONSTRAINT "PK_managers" PRIMARY KEY ("pin"),
        CONSTRAINT "CHK_managers_pin" CHECK ("pin" ~ '^[A-Z0-9_]{6}$')
      )`);
    await queryRunner.query(`
      INSERT INTO "managers" ("pin", "full_name") VALUES
        ('M_0001', 'Ivanov Ivan Ivanovich'),
        ('M_0002', 'Petrova Maria Sergeevna'),
        ('M_0003', 'Sidorov Alexey Petrovich'),
        ('M_0004', 'Kuznetsova Olga Nikolaevna'),
        ('M_0005', 'Smirnov Dmitry Andreevich')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "managers"`);
  }
}
