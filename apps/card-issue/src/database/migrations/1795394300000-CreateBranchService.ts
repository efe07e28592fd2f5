import { MigrationInterface, QueryRunner } from 'typeorm';

/** Seeded branches of the reference branch service; the card issue tests rely on 0001-0005. */
const SEEDED_BRANCHES = [
  { id: '0001', name: 'Central branch', address: 'Moscow, Tverskaya st., 1' },
  { id: '0002', name: 'Arbat branch', address: 'Moscow, Novy Arbat st., 15' },
  { id: '0003', name: 'Nevsky branch', address: 'Saint Petersburg, Nevsky pr., 28' },
  { id: '0004', name: 'Kazan branch', address: 'Kazan, Baumana st., 40' },
  { id: '0005', name: 'Novosibirsk branch', address: 'Novosibirsk, Krasny pr., 50' },
  { id: '0006', name: 'Yekaterinburg branch', address: 'Yekaterinburg, Lenina pr., 24' },
  { id: '0007', name: 'Sochi branch', address: 'Sochi, Kurortny pr., 18' },
] as const;

export class CreateBranchService1795394300000 implements MigrationInterface {
  name = 'CreateBranchService1795394300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS branch_service`);
    await queryRunner.query(`
      CREATE TABLE branch_service.branches (
        id char(4) NOT NULL,
        name varchar(150) NOT NULL,
        address varchar(300) NOT NULL,
        CONSTRAINT pk_branch_service_branches PRIMARY KEY (id),
        CONSTRAINT ck_branch_service_branches_id CHECK (id ~ '^[0-9]{4}$')
      )
    `);
    for (const branch of SEEDED_BRANCHES) {
      await queryRunner.query(
        `INSERT INTO branch_service.branches (id, name, address) VALUES ($1, $2, $3)`,
        [branch.id, branch.name, branch.address],
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE branch_service.branches`);
    await queryRunner.query(`DROP SCHEMA IF EXISTS branch_service`);
  }
}
