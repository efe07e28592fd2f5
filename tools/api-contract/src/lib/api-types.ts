/*
 * The openapi-typescript types of the committed documents (openapi/generated/, written by
 * `npm run openapi`), for the typed clients of the tests. They live at the workspace root
 * for integrators, outside any project, hence the one exception to the boundary rule.
 */
/* eslint-disable @nx/enforce-module-boundaries -- committed artefacts outside any project */
export type * as CardIssueApi from '../../../../openapi/generated/card-issue';
export type * as ClientRegistrationApi from '../../../../openapi/generated/client-registration';
/* eslint-enable @nx/enforce-module-boundaries */
