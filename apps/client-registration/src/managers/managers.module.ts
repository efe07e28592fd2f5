import { Module } from '@nestjs/common';
import { ManagersRepository } from './managers.repository';
import { ManagersService } from './managers.service';

@Module({
  providers: [ManagersRepository, ManagersService],
  exports: [ManagersService],
})
export class ManagersModule {}
