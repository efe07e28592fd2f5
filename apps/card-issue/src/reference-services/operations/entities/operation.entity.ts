import {
  Column,
  CreateDateColumn,
  Check,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';

/** An operation of the reference operation service; its own schema, as if it were a separate database. */
@Entity({ schema: 'operation_service', name: 'operations' })
@Unique('uq_operation_service_operations_request', ['requestId'])
// Both indexes are (…, created_at DESC) in the migration; TypeORM does not model the order.
@Index('ix_operation_service_operations_owner', ['cardOwner', 'createdAt'])
@Index('ix_operation_service_operations_holder', ['holderUserId', 'createdAt'])
@Check('ck_operation_service_operations_form_factor', "form_factor IN ('VIRTUAL', 'PLASTIC')")
@Check(
  'ck_operation_service_operations_status',
  "status IN ('CREATED', 'PROCESSING', 'READY', 'PLASTIC_READY', 'FAILED')",
)
export class OperationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'request_id', type: 'varchar', length: 20 })
  requestId!: string;

  @Column({ name: 'card_owner', type: 'varchar', length: 6 })
  cardOwner!: string;

  @Column({ name: 'holder_user_id', type: 'varchar', length: 6, nullable: true })
  holderUserId!: string | null;

  @Column({ name: 'form_factor', type: 'varchar', length: 10 })
  formFactor!: string;

  @Column({ type: 'varchar', length: 20 })
  status!: string;

  /** Highest sequence number of a status update applied so far (null: none carried one). */
  @Column({ name: 'last_sequence', type: 'bigint', nullable: true })
  lastSequence!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
