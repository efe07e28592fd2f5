/*
 * The client-registration test harness: start the service as main.ts does, and typed payload
 * builders. The service's own specs import these files by relative path; the tools import
 * this entry point as `@bank/client-registration/testing` (the one import of this app the
 * lint rule allows them).
 */
export * from './client-registration.harness';
export * from './client-request.fixture';
// Its configuration class, which tools/deploy-check validates the Kubernetes configuration with.
export { ClientRegistrationEnvironment } from '../src/config/environment.config';
