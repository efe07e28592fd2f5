import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A branch of the reference branch service; seeded by a migration. */
@Entity({ schema: 'branch_service', name: 'branches' })
export class BranchEntity {
  @PrimaryColumn({ type: 'char', length: 4 })
  id!: string;

  @Column({ type: 'varchar', length: 150 })
  name!: string;

  @Column({ type: 'varchar', length: 300 })
  address!: string;
}
