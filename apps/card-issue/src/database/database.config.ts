import { DatabaseModuleOptions } from '@bank/shared/database';
import { SERVICE_NAME } from '../config/environment';
import { BranchEntity } from '../downstream/branches/entities/branch.entity';
import { OperationEntity } from '../downstream/operations/entities/operation.entity';
import { UserEntity } from '../downstream/users/entities/user.entity';
import { CreateBranchService1795394300000 } from './migrations/1795394300000-CreateBranchService';
import { CreateOperationService1795394200000 } from './migrations/1795394200000-CreateOperationService';
import { CreateUserService1795394100000 } from './migrations/1795394100000-CreateUserService';

/** Every entity and migration of the service, listed so that a bundled build finds them. */
export const DATABASE_OPTIONS: Pick<
  DatabaseModuleOptions,
  'serviceName' | 'entities' | 'migrations'
> = {
  serviceName: SERVICE_NAME,
  entities: [UserEntity, OperationEntity, BranchEntity],
  migrations: [
    CreateUserService1795394100000,
    CreateOperationService1795394200000,
    CreateBranchService1795394300000,
  ],
};
