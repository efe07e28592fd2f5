/*
 * The two services under contract, booted from their real AppModule and configureApp through
 * each app's test harness (@bank/<app>/testing, the one import of an app a tool may make): a
 * contract test of a service's HTTP surface has to run that service, and booting it in-process
 * is what keeps the documents "from the running code" without a build or a port.
 */
import { DynamicModule } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { BACKGROUND_OFF, CARD_ISSUE_SERVICE } from '@bank/card-issue/testing';
import { CLIENT_REGISTRATION_SERVICE } from '@bank/client-registration/testing';

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
    module: CARD_ISSUE_SERVICE.module,
    configure: CARD_ISSUE_SERVICE.configure,
    overrides: { ...COMMON_OVERRIDES, X_SECRET: TEST_X_SECRET, ...BACKGROUND_OFF },
  },
  'client-registration': {
    name: 'client-registration',
    module: CLIENT_REGISTRATION_SERVICE.module,
    configure: CLIENT_REGISTRATION_SERVICE.configure,
    overrides: { ...COMMON_OVERRIDES },
  },
};

export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

/**
 * The OpenAPI documents the services serve, each committed as openapi/<name>.json: a
 * service's own API at /docs-json, and each reference service of the card-issue deployment
 * under its own prefix.
 */
export const DOCUMENTS = {
  'card-issue': { service: 'card-issue', prefix: '' },
  'user-api': { service: 'card-issue', prefix: '/user-api' },
  'operation-api': { service: 'card-issue', prefix: '/operation-api' },
  'operation-api-v2': { service: 'card-issue', prefix: '/operation-api-v2' },
  'branch-api': { service: 'card-issue', prefix: '/branch-api' },
  'client-registration': { service: 'client-registration', prefix: '' },
} as const satisfies Record<string, { service: ServiceName; prefix: string }>;

export type DocumentName = keyof typeof DOCUMENTS;

export const DOCUMENT_NAMES = Object.keys(DOCUMENTS) as DocumentName[];

/** The reference-service documents (X-secret on every operation). */
export const REFERENCE_DOCUMENT_NAMES: DocumentName[] = [
  'user-api',
  'operation-api',
  'operation-api-v2',
  'branch-api',
];
