import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ManagerEntity } from './entities/manager.entity';

export interface Manager {
  pin: string;
  fullName: string;
}

@Injectable()
export class ManagersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByPin(pin: string): Promise<Manager | null> {
    const manager = await this.dataSource.getRepository(ManagerEntity).findOneBy({ pin });
    return manager ? { pin: manager.pin, fullName: manager.fullName } : null;
  }

  async findAll(): Promise<Manager[]> {
    const managers = await this.dataSource
      .getRepository(ManagerEntity)
      .find({ order: { pin: 'ASC' } });
    return managers.map(({ pin, fullName }) => ({ pin, fullName }));
  }
}
