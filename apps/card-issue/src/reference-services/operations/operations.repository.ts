import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { UUID_PATTERN } from '@bank/shared/identifiers';
import { OperationEntity } from './entities/operation.entity';

export interface NewOperation {
  requestId: string;
  cardOwner: string;
  holderUserId: string | null;
  formFactor: string;
  status: string;
}

@Injectable()
export class OperationsRepository {
  constructor(
    @InjectRepository(OperationEntity) private readonly operations: Repository<OperationEntity>,
  ) {}

  /**
   * Inserts unless an operation for the request id exists (unique constraint, ON CONFLICT DO
   * NOTHING, so concurrent creates cannot make two); returns the stored one either way.
   */
  async insertOnce(input: NewOperation): Promise<{ operation: OperationEntity; created: boolean }> {
    const result = await this.operations
      .createQueryBuilder()
      .insert()
      .into(OperationEntity)
      .values(input)
      .orIgnore()
      .returning(['id'])
      .execute();
    const created = (result.raw as unknown[]).length > 0;
    const operation = await this.operations.findOneByOrFail({ requestId: input.requestId });
    return { operation, created };
  }

  /** A malformed id names no operation (and must not reach the uuid column as a cast error). */
  findById(id: string): Promise<OperationEntity | null> {
    if (!UUID_PATTERN.test(id)) return Promise.resolve(null);
    return this.operations.findOneBy({ id });
  }

  findByOwner(cardOwner: string): Promise<OperationEntity[]> {
    return this.operations.find({ where: { cardOwner }, order: { createdAt: 'DESC', id: 'ASC' } });
  }

  findByHolder(holderUserId: string): Promise<OperationEntity[]> {
    return this.operations.find({
      where: { holderUserId },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /**
   * Sets the status in one statement. With a sequence the row changes only when it is greater
   * than the last applied one, so a redelivered or late update cannot undo a newer one.
   * @returns whether the update was applied
   */
  async updateStatus(id: string, status: string, sequence?: number): Promise<boolean> {
    if (!UUID_PATTERN.test(id)) return false;
    const query = this.operations
      .createQueryBuilder()
      .update(OperationEntity)
      .set(
        sequence === undefined
          ? { status, updatedAt: () => 'now()' }
          : { status, lastSequence: String(sequence), updatedAt: () => 'now()' },
      )
      .where('id = :id', { id });
    if (sequence !== undefined) {
      query.andWhere('(last_sequence IS NULL OR last_sequence < :sequence)', { sequence });
    }
    const result = await query.execute();
    return (result.affected ?? 0) > 0;
  }
}
