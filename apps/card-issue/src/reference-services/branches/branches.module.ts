import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { XSecretModule } from '../x-secret/x-secret.module';
import { BranchEntity } from './entities/branch.entity';
import { BranchesController } from './branches.controller';
import { BranchesService } from './branches.service';

/** Reference branch service, mounted under {base_url}/branch-api. */
@Module({
  imports: [TypeOrmModule.forFeature([BranchEntity]), XSecretModule],
  controllers: [BranchesController],
  providers: [BranchesService],
})
export class BranchesModule {}
