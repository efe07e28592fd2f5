import { Injectable } from '@nestjs/common';
import { CreateOperationDto, OperationDto, UpdateOperationStatusDto } from './dto/operation.dto';
import { OperationEntity } from './entities/operation.entity';
import { OperationNotFoundError, OperationRequestConflictError } from './operations.errors';
import { OperationsRepository } from './operations.repository';

@Injectable()
export class OperationsService {
  constructor(private readonly repository: OperationsRepository) {}

  /**
   * Creates the operation of a card issue request, or returns the one already made for it
   * (`created: false`): senders may repeat a create whose answer they did not receive.
   */
  async create(input: CreateOperationDto): Promise<{ operation: OperationDto; created: boolean }> {
    const holderUserId = input.holderUserId ?? null;
    const { operation, created } = await this.repository.insertOnce({
      requestId: input.requestId,
      cardOwner: input.cardOwner,
      holderUserId,
      formFactor: input.formFactor,
      status: input.status ?? 'CREATED',
    });
    if (
      !created &&
      (operation.cardOwner !== input.cardOwner ||
        operation.holderUserId !== holderUserId ||
        operation.formFactor !== input.formFactor)
    ) {
      throw new OperationRequestConflictError(input.requestId);
    }
    return { operation: toDto(operation), created };
  }

  async get(id: string): Promise<OperationDto> {
    const operation = await this.repository.findById(id);
    if (!operation) throw new OperationNotFoundError(id);
    return toDto(operation);
  }

  async byOwner(cardOwner: string): Promise<OperationDto[]> {
    return (await this.repository.findByOwner(cardOwner)).map(toDto);
  }

  async byHolder(userId: string): Promise<OperationDto[]> {
    return (await this.repository.findByHolder(userId)).map(toDto);
  }

  /** Applies the status unless its sequence is stale; either way answers with the stored operation. */
  async updateStatus(id: string, input: UpdateOperationStatusDto): Promise<OperationDto> {
    // null passes @IsOptional: it means "no sequence", like an absent one (not the text 'null').
    await this.repository.updateStatus(id, input.status, input.sequence ?? undefined);
    return this.get(id);
  }
}

function toDto(entity: OperationEntity): OperationDto {
  return {
    id: entity.id,
    requestId: entity.requestId,
    cardOwner: entity.cardOwner,
    holderUserId: entity.holderUserId,
    formFactor: entity.formFactor as OperationDto['formFactor'],
    status: entity.status as OperationDto['status'],
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}
