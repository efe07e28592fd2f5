import { Module } from '@nestjs/common';
import { XSecretModule } from '../x-secret/x-secret.module';
import { OperationsV2Controller } from './operations-v2.controller';
import { OperationsModule } from './operations.module';

/**
 * The path variant {base_url}/operation-api-v2: the same interface over the same operations.
 * A module of its own because RouterModule gives each module one path.
 */
@Module({
  imports: [OperationsModule, XSecretModule],
  controllers: [OperationsV2Controller],
})
export class OperationsV2Module {}
