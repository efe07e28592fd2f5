import { ApiDocumentSettings } from '@bank/shared/openapi';
import { REFERENCE_SERVICE_ROUTES } from './reference-services.module';
import {
  BRANCH_SERVICE_TAG,
  OPERATION_SERVICE_TAG,
  OPERATION_SERVICE_V2_TAG,
  USER_SERVICE_TAG,
  withXSecret,
} from './reference-services.openapi';

const [users, operations, operationsV2, branches] = REFERENCE_SERVICE_ROUTES;

/**
 * One OpenAPI document per reference service, each under the prefix RouterModule mounts it
 * at (reference-services.module.ts): {base_url}/user-api/docs, /user-api/docs-json, ...
 */
export const REFERENCE_SERVICE_DOCUMENTS: ApiDocumentSettings[] = [
  {
    prefix: `/${users.path}`,
    title: 'User service (reference)',
    description:
      'Reference user service of the card-issue deployment: the card issue service looks users up and ' +
      'creates third-party card holders here. Every operation requires the X-secret header.',
    version: '1.0.1',
    include: [users.module],
    tags: [{ name: USER_SERVICE_TAG, description: 'Users (requires X-secret)' }],
    customize: withXSecret,
  },
  {
    prefix: `/${operations.path}`,
    title: 'Operation service (reference, v1)',
    description:
      'Reference operation service: the card issue service records each card issue request and its ' +
      'status changes here (through its outbox). Every operation requires the X-secret header.',
    version: '1.0.1',
    include: [operations.module],
    tags: [{ name: OPERATION_SERVICE_TAG, description: 'Operations (requires X-secret)' }],
    customize: withXSecret,
  },
  {
    prefix: `/${operationsV2.path}`,
    title: 'Operation service (reference, v2 path)',
    description:
      'The same operation service interface and data as /operation-api, at the v2 address. Every ' +
      'operation requires the X-secret header.',
    version: '1.0.1',
    include: [operationsV2.module],
    tags: [{ name: OPERATION_SERVICE_V2_TAG, description: 'Operations (requires X-secret)' }],
    customize: withXSecret,
  },
  {
    prefix: `/${branches.path}`,
    title: 'Branch service (reference)',
    description:
      'Reference branch service: the card issue service checks the delivery branch here. Every ' +
      'operation requires the X-secret header.',
    version: '1.0.0',
    include: [branches.module],
    tags: [{ name: BRANCH_SERVICE_TAG, description: 'Branches (requires X-secret)' }],
    customize: withXSecret,
  },
];
