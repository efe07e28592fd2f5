import { DatabaseModuleOptions } from '@bank/shared/database';
import { SERVICE_NAME } from '../config/environment';

/** Every entity and migration of the service, listed so that a bundled build finds them. */
export const DATABASE_OPTIONS: Pick<
  DatabaseModuleOptions,
  'serviceName' | 'entities' | 'migrations'
> = {
  serviceName: SERVICE_NAME,
  entities: [],
  migrations: [],
};
