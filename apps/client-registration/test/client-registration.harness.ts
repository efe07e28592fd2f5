import {
  RunningTestService,
  ServiceEntryPoint,
  spawnTestService,
  StartedWhen,
  startTestService,
  TestServiceDefinition,
  TestServiceOptions,
  TestServiceProcess,
} from '@bank/shared/testing';
import { AppModule } from '../src/app.module';
import { configureApp } from '../src/configure-app';

/**
 * The client-registration service as main.ts composes it (AppModule + configureApp on the
 * Fastify adapter), quiet. Its own e2e tests and the tools (robustness, api-contract, bench)
 * all start it from here.
 */
export const CLIENT_REGISTRATION_SERVICE: TestServiceDefinition = {
  name: 'client_registration',
  module: (env) => AppModule.register(env),
  configure: configureApp,
  defaults: { LOG_LEVEL: 'silent' },
};

/** Starts the client-registration service on a loopback port. */
export function startClientRegistration(
  options: TestServiceOptions = {},
): Promise<RunningTestService> {
  return startTestService(CLIENT_REGISTRATION_SERVICE, options);
}

/** main.ts as `nx serve client-registration` runs it. */
export const CLIENT_REGISTRATION_MAIN: ServiceEntryPoint = {
  name: 'client-registration',
  main: 'apps/client-registration/src/main.ts',
  tsconfig: 'apps/client-registration/tsconfig.app.json',
};

/** Starts the client-registration service as its own process, the defaults under `env`. */
export function spawnClientRegistration(
  env: Record<string, string>,
  timeoutMs?: number,
  startedWhen?: StartedWhen,
): Promise<TestServiceProcess> {
  return spawnTestService(
    CLIENT_REGISTRATION_MAIN,
    { ...(CLIENT_REGISTRATION_SERVICE.defaults as Record<string, string>), ...env },
    timeoutMs,
    startedWhen,
  );
}
