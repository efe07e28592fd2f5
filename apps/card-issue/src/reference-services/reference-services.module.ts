import { Module } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { BranchesModule } from './branches/branches.module';
import { OperationsV2Module } from './operations/operations-v2.module';
import { OperationsModule } from './operations/operations.module';
import { UsersModule } from './users/users.module';

/** Where each reference service is mounted (its OpenAPI document is served there too). */
export const REFERENCE_SERVICE_ROUTES = [
  { path: 'user-api', module: UsersModule },
  { path: 'operation-api', module: OperationsModule },
  { path: 'operation-api-v2', module: OperationsV2Module },
  { path: 'branch-api', module: BranchesModule },
] as const;

/**
 * The reference downstream services the card-issue deployment serves under its own base
 * address (spec part 1 "Addresses"). The card issue module never calls them in-process,
 * only over HTTP through the gateways in integrations/.
 */
@Module({
  imports: [
    UsersModule,
    OperationsModule,
    OperationsV2Module,
    BranchesModule,
    RouterModule.register([...REFERENCE_SERVICE_ROUTES]),
  ],
})
export class ReferenceServicesModule {}
