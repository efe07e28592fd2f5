import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { BranchDto } from './dto/branch.dto';
import { BranchEntity } from './entities/branch.entity';
import { BranchNotFoundError } from './branches.errors';

/** Read-only: the branches come from a seeding migration. */
@Injectable()
export class BranchesService {
  constructor(
    @InjectRepository(BranchEntity) private readonly branches: Repository<BranchEntity>,
  ) {}

  async get(id: string): Promise<BranchDto> {
    const branch = await this.branches.findOneBy({ id });
    if (!branch) throw new BranchNotFoundError(id);
    return toDto(branch);
  }

  async list(): Promise<BranchDto[]> {
    return (await this.branches.find({ order: { id: 'ASC' } })).map(toDto);
  }
}

function toDto(entity: BranchEntity): BranchDto {
  return { id: entity.id, name: entity.name, address: entity.address };
}
