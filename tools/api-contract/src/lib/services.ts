/*
 * The two services under contract, booted from their real AppModule and configureApp.
 *
 * This is the one place where this project imports the apps: a contract test of a service's
 * HTTP surface has to run that service, and booting it in-process (as the apps' own e2e
 * tests do) is what keeps the documents "from the running code" without a build or a port.
 */
import { DynamicModule } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
/* eslint-disable @nx/enforce-module-boundaries -- contract tests boot the real apps (see above) */
import { AppModule as CardIssueAppModule } from '../../../../apps/card-issue/src/app.module';
import { configureApp as configureCardIssue } from '../../../../apps/card-issue/src/configure-app';
import { AppModule as ClientRegistrationAppModule } from '../../../../apps/client-registration/src/app.module';
import { configureApp as configureClientRegistration } from '../../../../apps/client-registration/src/configure-app';
/* eslint-enable @nx/enforce-module-boundaries */

export type ServiceName = 'card-issue' | 'client-registration';

export interface ServiceUnderContract {
  name: ServiceName;
  module: (overrides: Record<string, string | undefined>) => DynamicModule;
  configure: (app: NestFastifyApplication) => void;
  /** Configuration every boot of this service in the contract checks uses. */
  overrides: Record<string, string | undefined>;
}

/**
 * Quiet, no base path (the documents describe the root deployment) and no rate limit; the
 * card issue service's scheduler and outbox stay off so nothing moves by itself.
 */
const COMMON_OVERRIDES: Record<string, string | undefined> = {
  LOG_LEVEL: 'silent',
  BASE_PATH: undefined,
  RATE_LIMIT: '0',
  DB_POOL_SIZE: '3',
};

/** X-secret the contract tests configure on the card issue service and send. */
export const TEST_X_SECRET = 'api-contract-test-secret';

export const SERVICES: Record<ServiceName, ServiceUnderContract> = {
  'card-issue': {
    name: 'card-issue',
    module: (overrides) => CardIssueAppModule.register(overrides),
    configure: configureCardIssue,
    overrides: {
      ...COMMON_OVERRIDES,
      X_SECRET: TEST_X_SECRET,
      SCHEDULER_ENABLED: 'false',
      OUTBOX_ENABLED: 'false',
    },
  },
  'client-registration': {
    name: 'client-registration',
    module: (overrides) => ClientRegistrationAppModule.register(overrides),
    configure: configureClientRegistration,
    overrides: { ...COMMON_OVERRIDES },
  },
};

export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];
