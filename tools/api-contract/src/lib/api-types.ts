/*
 * The openapi-typescript types of the committed documents (openapi/generated/, written by
 * `npm run openapi`), for the typed clients of the tests. The documents are the `openapi`
 * project (tagged scope:shared, type:contract), read through its path aliases.
 */
export type * as CardIssueApi from '@bank/openapi/card-issue';
export type * as ClientRegistrationApi from '@bank/openapi/client-registration';
export type * as UserApi from '@bank/openapi/user-api';
export type * as OperationApi from '@bank/openapi/operation-api';
export type * as OperationApiV2 from '@bank/openapi/operation-api-v2';
export type * as BranchApi from '@bank/openapi/branch-api';
