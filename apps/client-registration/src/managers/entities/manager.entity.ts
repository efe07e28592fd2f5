import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** A bank manager a registration is assigned to; the set is seeded by a migration. */
@Entity({ name: 'managers' })
@Check('CHK_managers_pin', `"pin" ~ '^[A-Z0-9_]{6}$'`)
export class ManagerEntity {
  @PrimaryColumn({ type: 'varchar', length: 6 })
  pin!: string;

  @Column({ name: 'full_name', type: 'varchar', length: 100 })
  fullName!: string;
}
