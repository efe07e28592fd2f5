import { Injectable } from '@nestjs/common';
import { ManagerNotFoundError } from './managers.errors';
import { Manager, ManagersRepository } from './managers.repository';

@Injectable()
export class ManagersService {
  constructor(private readonly managers: ManagersRepository) {}

  /** The manager with this PIN; ManagerNotFoundError when there is none. */
  async requireByPin(pin: string): Promise<Manager> {
    const manager = await this.managers.findByPin(pin);
    if (!manager) throw new ManagerNotFoundError(pin);
    return manager;
  }
}
