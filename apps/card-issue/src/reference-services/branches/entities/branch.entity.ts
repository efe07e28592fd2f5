import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** A branch of the reference branch service; seeded by a migration. */
@Entity({ schema: 'branch_service', name: 'branches' })
@Check('ck_branch_service_branches_id', "id ~ '^[0-9]{4}$'")
export class BranchEntity {
  @PrimaryColumn({ type: 'char', length: 4 })
  id!: string;

  @Column({ type: 'varchar', length: 150 })
  name!: string;

  @Column({ type: 'varchar', length: 300 })
  address!: string;
}
