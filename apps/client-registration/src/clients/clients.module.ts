import { Module } from '@nestjs/common';
import { ManagersModule } from '../managers/managers.module';
import { AccountNumberGenerator } from './account-number.generator';
import { ClientsController } from './clients.controller';
import { ClientsIdempotencyScheduler } from './clients-idempotency.scheduler';
import { ClientsIdempotencyService } from './clients-idempotency.service';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';

@Module({
  imports: [ManagersModule],
  controllers: [ClientsController],
  providers: [
    ClientsService,
    ClientsRepository,
    ClientsIdempotencyService,
    ClientsIdempotencyScheduler,
    AccountNumberGenerator,
  ],
})
export class ClientsModule {}
