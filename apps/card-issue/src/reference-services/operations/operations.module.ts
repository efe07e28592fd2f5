import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { XSecretModule } from '../x-secret/x-secret.module';
import { OperationEntity } from './entities/operation.entity';
import { OperationsController } from './operations.controller';
import { OperationsRepository } from './operations.repository';
import { OperationsService } from './operations.service';

/** Reference operation service, mounted under {base_url}/operation-api. */
@Module({
  imports: [TypeOrmModule.forFeature([OperationEntity]), XSecretModule],
  controllers: [OperationsController],
  providers: [OperationsService, OperationsRepository],
  exports: [OperationsService],
})
export class OperationsModule {}
