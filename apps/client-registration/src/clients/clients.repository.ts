import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { entityColumns, readQuery, uniqueViolationConstraint } from '@bank/shared/database';
import { ClientEntity } from './entities/client.entity';
import { AccountNumberTakenError, PassportAlreadyRegisteredError } from './clients.errors';

export type NewClient = Omit<ClientEntity, 'id'>;
export type PassportColumns = Pick<
  ClientEntity,
  'birthDate' | 'birthPlace' | 'passportIssueDate' | 'passportSeries' | 'passportNumber'
>;

/** Constraint names of the CreateClients migration. */
const PASSPORT_CONSTRAINT = 'UQ_clients_passport';
const ACCOUNT_NUMBER_CONSTRAINT = 'UQ_clients_account_number';

/**
 * Clients table. Uniqueness is left to the constraints (no read-then-write check), and
 * their violations are translated here: passport -> PassportAlreadyRegisteredError,
 * account number -> AccountNumberTakenError.
 */
@Injectable()
export class ClientsRepository {
  /** One client by id, read without a TypeORM query runner (the hot read path). */
  private readonly findByIdSql: string;

  constructor(private readonly dataSource: DataSource) {
    this.findByIdSql =
      `SELECT ${entityColumns(dataSource, ClientEntity)} ` +
      `FROM ${dataSource.getMetadata(ClientEntity).tablePath} WHERE id = $1`;
  }

  /** Runs work in a transaction; everything inside must use the given manager. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  private get clients() {
    return this.dataSource.getRepository(ClientEntity);
  }

  async findById(id: string): Promise<ClientEntity | null> {
    const rows = await readQuery<ClientEntity>(this.dataSource, this.findByIdSql, [id]);
    return rows[0] ?? null;
  }

  /** Inserts a client, in the transaction of `manager` when given. */
  async insert(client: NewClient, manager?: EntityManager): Promise<ClientEntity> {
    const clients = manager ? manager.getRepository(ClientEntity) : this.clients;
    const entity = clients.create(client);
    try {
      await clients.insert(entity);
    } catch (error) {
      throw translateUniqueViolation(error, client);
    }
    return entity;
  }

  /** Replaces the passport and the actualization instant; null when no client has the id. */
  async updatePassport(
    id: string,
    passport: PassportColumns,
    actualizedAt: Date,
  ): Promise<ClientEntity | null> {
    try {
      const result = await this.clients.update({ id }, { ...passport, actualizedAt });
      if (!result.affected) return null;
    } catch (error) {
      throw translateUniqueViolation(error, { ...passport, accountNumber: '' });
    }
    return this.findById(id);
  }
}

function translateUniqueViolation(
  error: unknown,
  client: Pick<NewClient, 'passportSeries' | 'passportNumber' | 'accountNumber'>,
): unknown {
  const constraint = uniqueViolationConstraint(error);
  if (constraint === PASSPORT_CONSTRAINT) {
    return new PassportAlreadyRegisteredError(client.passportSeries, client.passportNumber);
  }
  if (constraint === ACCOUNT_NUMBER_CONSTRAINT) {
    return new AccountNumberTakenError(client.accountNumber);
  }
  return error;
}
