import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, Unique } from 'typeorm';

export interface AddressColumns {
  country: string;
  region: string;
  city: string;
  street: string;
  building: string;
  apartment?: string;
}

/** A user of the reference user service; its own schema, as if it were a separate database. */
@Entity({ schema: 'user_service', name: 'users' })
@Unique('uq_user_service_users_passport', ['passportSeries', 'passportNumber'])
@Unique('uq_user_service_users_idempotency_key', ['idempotencyKey'])
@Check('ck_user_service_users_id', "id ~ '^X[A-Z0-9]{5}$'")
@Check('ck_user_service_users_gender', "gender IN ('MALE', 'FEMALE')")
@Check('ck_user_service_users_client_type', "client_type IN ('UP', 'FL', 'IP')")
@Check('ck_user_service_users_account', "account IN ('RUR', 'USD', 'EUR')")
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 6 })
  id!: string;

  @Column({ name: 'first_name', type: 'varchar', length: 150 })
  firstName!: string;

  @Column({ name: 'middle_name', type: 'varchar', length: 150, nullable: true })
  middleName!: string | null;

  @Column({ name: 'last_name', type: 'varchar', length: 150 })
  lastName!: string;

  @Column({ type: 'varchar', length: 6 })
  gender!: string;

  @Column({ name: 'client_type', type: 'varchar', length: 2 })
  clientType!: string;

  @Column({ name: 'bankrupt_individual', type: 'boolean' })
  bankruptIndividual!: boolean;

  @Column({ name: 'bankrupt_entrepreneur', type: 'boolean' })
  bankruptEntrepreneur!: boolean;

  @Column({ type: 'varchar', length: 11 })
  phone!: string;

  @Column({ type: 'varchar', length: 150 })
  email!: string;

  @Column({ name: 'embossing_name', type: 'varchar', length: 150 })
  embossingName!: string;

  /** dd-MM-yyyy as received (already checked to be a real date). */
  @Column({ name: 'birth_date', type: 'varchar', length: 10 })
  birthDate!: string;

  @Column({ name: 'birth_place', type: 'varchar', length: 150 })
  birthPlace!: string;

  @Column({ name: 'issue_date', type: 'varchar', length: 10 })
  issueDate!: string;

  @Column({ name: 'passport_series', type: 'char', length: 4 })
  passportSeries!: string;

  @Column({ name: 'passport_number', type: 'char', length: 6 })
  passportNumber!: string;

  @Column({ name: 'actual_address', type: 'jsonb' })
  actualAddress!: AddressColumns;

  @Column({ name: 'registration_address', type: 'jsonb' })
  registrationAddress!: AddressColumns;

  @Column({ type: 'varchar', length: 3 })
  account!: string;

  @Column({ name: 'manager_pin', type: 'varchar', length: 20 })
  managerPin!: string;

  /** The Idempotency-Key of the create that made this user; null for a create without one. */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true })
  idempotencyKey!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
