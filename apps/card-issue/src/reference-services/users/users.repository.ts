import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { entityColumns, readQuery, uniqueViolationConstraint } from '@bank/shared/database';
import { UserEntity } from './entities/user.entity';

/** Names given by the migration; a unique violation is told apart by its constraint. */
const USER_PK_CONSTRAINT = 'pk_user_service_users';
const USER_PASSPORT_CONSTRAINT = 'uq_user_service_users_passport';
const USER_KEY_CONSTRAINT = 'uq_user_service_users_idempotency_key';

export type InsertUserOutcome = 'inserted' | 'id-taken' | 'passport-taken' | 'key-taken';

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
      const constraint = uniqueViolationConstraint(error);
      if (constraint === USER_PK_CONSTRAINT) return 'id-taken';
      if (constraint === USER_PASSPORT_CONSTRAINT) return 'passport-taken';
      if (constraint === USER_KEY_CONSTRAINT) return 'key-taken';
      throw error;
    }
  }

  async findById(id: string): Promise<UserEntity | null> {
    const rows = await readQuery<UserEntity>(this.users.manager.connection, this.findByIdSql, [id]);
    return rows[0] ?? null;
  }

  findByIdempotencyKey(key: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ idempotencyKey: key });
  }

  findAll(): Promise<UserEntity[]> {
    return this.users.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.users.delete({ id });
    return (result.affected ?? 0) > 0;
  }
}
