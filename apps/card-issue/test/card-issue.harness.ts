import {
  RunningTestService,
  ServiceEntryPoint,
  spawnTestService,
  StartedWhen,
  startTestService,
  TestEnvironment,
  TestServiceDefinition,
  TestServiceOptions,
  TestServiceProcess,
} from '@bank/shared/testing';
import { AppModule } from '../src/app.module';
import { configureApp } from '../src/configure-app';

/** X-secret the harness configures unless a test sets its own X_SECRET. */
export const SECRET = 'test-secret';

/**
 * The card-issue service as main.ts composes it (AppModule + configureApp on the Fastify
 * adapter), quiet, with the harness's X-secret. Its own e2e tests and the tools (robustness,
 * api-contract, bench) all start it from here.
 */
export const CARD_ISSUE_SERVICE: TestServiceDefinition = {
  name: 'card_issue',
  module: (env) => AppModule.register(env),
  configure: configureApp,
  defaults: { LOG_LEVEL: 'silent', X_SECRET: SECRET },
};

/**
 * The scheduler, the outbox and webhook delivery off: nothing moves and nothing runs on a timer
 * unless the test makes it (a test that counts statements or waits for quiet needs all three).
 */
export const BACKGROUND_OFF: TestEnvironment = {
  SCHEDULER_ENABLED: 'false',
  OUTBOX_ENABLED: 'false',
  WEBHOOKS_ENABLED: 'false',
};

/** Starts the card-issue service (with its reference services) on a loopback port. */
export function startCardIssue(options: TestServiceOptions = {}): Promise<RunningTestService> {
  return startTestService(CARD_ISSUE_SERVICE, options);
}

/** main.ts as `nx serve card-issue` runs it. */
export const CARD_ISSUE_MAIN: ServiceEntryPoint = {
  name: 'card-issue',
  main: 'apps/card-issue/src/main.ts',
  tsconfig: 'apps/card-issue/tsconfig.app.json',
};

/** Starts the card-issue service as its own process (what a replica is), the defaults under `env`. */
export function spawnCardIssue(
  env: Record<string, string>,
  timeoutMs?: number,
  startedWhen?: StartedWhen,
): Promise<TestServiceProcess> {
  return spawnTestService(
    CARD_ISSUE_MAIN,
    { ...(CARD_ISSUE_SERVICE.defaults as Record<string, string>), ...env },
    timeoutMs,
    startedWhen,
  );
}
