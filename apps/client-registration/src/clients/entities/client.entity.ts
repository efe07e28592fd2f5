import {
  Check,
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { Currency } from '@bank/shared/identifiers';
import { ManagerEntity } from '../../managers/entities/manager.entity';

export type Gender = 'MALE' | 'FEMALE';
export type ClientType = 'UP';

/**
 * A registered client with passport, both addresses and the account opened at
 * registration. Calendar dates are `yyyy-MM-dd` strings (PostgreSQL `date`); instants are
 * timestamptz. Never leaves the clients service: responses are mapped to DTOs.
 */
@Entity({ name: 'clients' })
// What the migrations create, declared here so that migration generation sees no drift.
@Unique('UQ_clients_passport', ['passportSeries', 'passportNumber'])
@Unique('UQ_clients_account_number', ['accountNumber'])
@Index('IDX_clients_manager_pin', ['managerPin'])
@Check('CHK_clients_gender', `"gender" IN ('MALE', 'FEMALE')`)
@Check('CHK_clients_client_type', `"client_type" = 'UP'`)
@Check('CHK_clients_account_currency', `"account_currency" IN ('RUR', 'USD', 'EUR')`)
@Check('CHK_clients_account_number', `"account_number" ~ '^40702(810|840|978)[0-9]{12}$'`)
@Check(
  'CHK_clients_passport',
  `"passport_series" ~ '^[0-9]{4}$' AND "passport_number" ~ '^[0-9]{6}$'`,
)
export class ClientEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'last_name', type: 'varchar', length: 35 })
  lastName!: string;

  @Column({ name: 'first_name', type: 'varchar', length: 35 })
  firstName!: string;

  @Column({ name: 'middle_name', type: 'varchar', length: 35 })
  middleName!: string;

  @Column({ type: 'varchar', length: 6 })
  gender!: Gender;

  @Column({ name: 'client_type', type: 'varchar', length: 2 })
  clientType!: ClientType;

  @Column({ name: 'bankrupt_individual', type: 'boolean' })
  bankruptIndividual!: boolean;

  @Column({ name: 'bankrupt_entrepreneur', type: 'boolean' })
  bankruptEntrepreneur!: boolean;

  @Column({ name: 'embossing_name', type: 'varchar', length: 30 })
  embossingName!: string;

  @Column({ type: 'varchar', length: 11 })
  phone!: string;

  @Column({ type: 'varchar', length: 50 })
  email!: string;

  @Column({ name: 'birth_date', type: 'date' })
  birthDate!: string;

  @Column({ name: 'birth_place', type: 'varchar', length: 120 })
  birthPlace!: string;

  @Column({ name: 'passport_issue_date', type: 'date' })
  passportIssueDate!: string;

  @Column({ name: 'passport_series', type: 'char', length: 4 })
  passportSeries!: string;

  @Column({ name: 'passport_number', type: 'char', length: 6 })
  passportNumber!: string;

  @Column({ name: 'actual_country', type: 'varchar', length: 50 })
  actualCountry!: string;

  @Column({ name: 'actual_region', type: 'varchar', length: 50 })
  actualRegion!: string;

  @Column({ name: 'actual_city', type: 'varchar', length: 120 })
  actualCity!: string;

  @Column({ name: 'actual_street', type: 'varchar', length: 120 })
  actualStreet!: string;

  @Column({ name: 'actual_building', type: 'varchar', length: 20 })
  actualBuilding!: string;

  @Column({ name: 'actual_apartment', type: 'varchar', length: 20 })
  actualApartment!: string;

  @Column({ name: 'registration_country', type: 'varchar', length: 50 })
  registrationCountry!: string;

  @Column({ name: 'registration_region', type: 'varchar', length: 50 })
  registrationRegion!: string;

  @Column({ name: 'registration_city', type: 'varchar', length: 120 })
  registrationCity!: string;

  @Column({ name: 'registration_street', type: 'varchar', length: 120 })
  registrationStreet!: string;

  @Column({ name: 'registration_building', type: 'varchar', length: 20 })
  registrationBuilding!: string;

  @Column({ name: 'registration_apartment', type: 'varchar', length: 20 })
  registrationApartment!: string;

  @Column({ name: 'manager_pin', type: 'varchar', length: 6 })
  managerPin!: string;

  @ManyToOne(() => ManagerEntity)
  @JoinColumn({
    name: 'manager_pin',
    referencedColumnName: 'pin',
    foreignKeyConstraintName: 'FK_clients_manager',
  })
  manager?: ManagerEntity;

  @Column({ name: 'account_number', type: 'char', length: 20 })
  accountNumber!: string;

  @Column({ name: 'account_currency', type: 'varchar', length: 3 })
  accountCurrency!: Currency;

  @Column({ name: 'accounting_mode', type: 'integer', default: 100 })
  accountingMode!: number;

  @Column({ name: 'registered_at', type: 'timestamptz' })
  registeredAt!: Date;

  @Column({ name: 'actualized_at', type: 'timestamptz' })
  actualizedAt!: Date;
}
