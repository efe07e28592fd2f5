import { DatabaseModuleOptions } from '@bank/shared/database';
import { CardIssueRequest } from '../card-issues/entities/card-issue-request.entity';
import { CardIssueStatusChange } from '../card-issues/entities/card-issue-status-change.entity';
import { IdempotencyKey } from '../card-issues/entities/idempotency-key.entity';
import { SERVICE_NAME } from '../config/environment.config';
import { BranchEntity } from '../reference-services/branches/entities/branch.entity';
import { OutboxMessage } from '../outbox/outbox-message.entity';
import { OperationEntity } from '../reference-services/operations/entities/operation.entity';
import { UserEntity } from '../reference-services/users/entities/user.entity';
import { CreateBranchService1795394300000 } from './migrations/1795394300000-CreateBranchService';
import { CreateOperationService1795394200000 } from './migrations/1795394200000-CreateOperationService';
import { CreateUserService1795394100000 } from './migrations/1795394100000-CreateUserService';
import { CardIssues1795394039976 } from './migrations/1795394039976-CardIssues';
import { UserIdempotencyKey1795394400000 } from './migrations/1795394400000-UserIdempotencyKey';
import { OutboxStates1795394540000 } from './migrations/1795394540000-OutboxStates';
import { IdempotencyKeyLeases1795410000000 } from './migrations/1795410000000-IdempotencyKeyLeases';
import { OutboxTraceContext1795420000000 } from './migrations/1795420000000-OutboxTraceContext';
import { HolderCreations1795430000000 } from './migrations/1795430000000-HolderCreations';
import { Webhooks1795440000000 } from './migrations/1795440000000-Webhooks';
import { FailureReasonsWithoutPassports1795450000000 } from './migrations/1795450000000-FailureReasonsWithoutPassports';
import { WebhookSubscriptionHealth1795460000000 } from './migrations/1795460000000-WebhookSubscriptionHealth';
import { WebhookAttemptErrors1795470000000 } from './migrations/1795470000000-WebhookAttemptErrors';

/** Every entity and migration of the service, listed so that a bundled build finds them. */
export const DATABASE_OPTIONS: Pick<
  DatabaseModuleOptions,
  'serviceName' | 'entities' | 'migrations'
> = {
  serviceName: SERVICE_NAME,
  entities: [
    UserEntity,
    OperationEntity,
    BranchEntity,
    CardIssueRequest,
    CardIssueStatusChange,
    IdempotencyKey,
    OutboxMessage,
  ],
  migrations: [
    CreateUserService1795394100000,
    CreateOperationService1795394200000,
    CreateBranchService1795394300000,
    CardIssues1795394039976,
    UserIdempotencyKey1795394400000,
    OutboxStates1795394540000,
    IdempotencyKeyLeases1795410000000,
    OutboxTraceContext1795420000000,
    HolderCreations1795430000000,
    Webhooks1795440000000,
    FailureReasonsWithoutPassports1795450000000,
    WebhookSubscriptionHealth1795460000000,
    WebhookAttemptErrors1795470000000,
  ],
};
