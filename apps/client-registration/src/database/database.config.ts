import { DatabaseModuleOptions } from '@bank/shared/database';
import { SERVICE_NAME } from '../config/environment.config';
import { ClientEntity } from '../clients/entities/client.entity';
import { ClientIdempotencyKeyEntity } from '../clients/entities/client-idempotency-key.entity';
import { ManagerEntity } from '../managers/entities/manager.entity';
import { CreateManagers1795394100000 } from './migrations/1795394100000-CreateManagers';
import { CreateClients1795394200000 } from './migrations/1795394200000-CreateClients';
import { CreateClientIdempotencyKeys1795410000000 } from './migrations/1795410000000-CreateClientIdempotencyKeys';

/** Every entity and migration of the service, listed so that a bundled build finds them. */
export const DATABASE_OPTIONS: Pick<
  DatabaseModuleOptions,
  'serviceName' | 'entities' | 'migrations'
> = {
  serviceName: SERVICE_NAME,
  entities: [ManagerEntity, ClientEntity, ClientIdempotencyKeyEntity],
  migrations: [
    CreateManagers1795394100000,
    CreateClients1795394200000,
    CreateClientIdempotencyKeys1795410000000,
  ],
};
