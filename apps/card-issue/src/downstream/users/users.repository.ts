import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { entityColumns, readQuery } from '@bank/shared/database';
import { PG_UNIQUE_VIOLATION } from '@bank/shared/errors';
import { UserEntity } from './entities/user.entity';

/** Names given by the migration; a unique violation is told apart by its constraint. */
export const USER_PK_CONSTRAINT = 'pk_user_service_users';
export const USER_PASSPORT_CONSTRAINT = 'uq_user_service_users_passport';

export type InsertUserOutcome = 'inserted' | 'id-taken' | 'passport-taken';

function violatedConstraint(error: unknown): string | undefined {
  if (!(error instanceof QueryFailedError)) return undefined;
  const driverError = error.driverError as { code?: string; constraint?: string } | undefined;
  return driverError?.code === PG_UNIQUE_VIOLATION ? (driverError.constraint ?? '') : undefined;
}

@Injectable()
export class UsersRepository {
  /** One user by id, read without a TypeORM query runner: every card issue POST asks for one. */
  private readonly findByIdSql: string;

  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {
    const dataSource = users.manager.connection;
    this.findByIdSql =
      `SELECT ${entityColumns(dataSource, UserEntity)} ` +
      `FROM ${users.metadata.tablePath} WHERE id = $1`;
  }

  /** One INSERT; the constraints decide races, so there is no read-then-write window. */
  async insert(user: UserEntity): Promise<InsertUserOutcome> {
    try {
      await this.users.insert(user);
      return 'inserted';
    } catch (error) {
      const constraint = violatedConstraint(error);
      if (constraint === USER_PK_CONSTRAINT) return 'id-taken';
      if (constraint === USER_PASSPORT_CONSTRAINT) return 'passport-taken';
      throw error;
    }
  }

  async findById(id: string): Promise<UserEntity | null> {
    const rows = await readQuery<UserEntity>(this.users.manager.connection, this.findByIdSql, [id]);
    return rows[0] ?? null;
  }

  findAll(): Promise<UserEntity[]> {
    return this.users.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.users.delete({ id });
    return (result.affected ?? 0) > 0;
  }
}
