import { DynamicModule } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TestingModuleBuilder } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { Clock } from '@bank/shared/calendar';
import { createTestDatabase, TestDatabase } from './test-database';
import { startTestApp, TestApp } from './test-app';

/** Configuration values as AppModule.register takes them (`undefined` unsets one). */
export type TestEnvironment = Record<string, string | undefined>;

/** A service as its main.ts composes it, for a harness to start in a test. */
export interface TestServiceDefinition {
  name: string;
  /** The service's root module with configuration overrides (`AppModule.register`). */
  module: (env: TestEnvironment) => DynamicModule;
  /** The service's own configureApp, the same one main.ts calls. */
  configure: (app: NestFastifyApplication) => void;
  /** Configuration every test boot starts from; DATABASE_URL and the options' env go on top. */
  defaults: TestEnvironment;
}

export interface TestServiceOptions {
  /** Label in the name of the throw-away database (ignored when `db` is given). */
  label?: string;
  /** Run on this database (e.g. several replicas on one); the caller then drops it. */
  db?: TestDatabase;
  /** Configuration over the service's defaults (wins over DATABASE_URL too). */
  env?: TestEnvironment;
  clock?: Clock;
  /** Further provider overrides (only for what is outside the system). */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

export interface RunningTestService extends TestApp {
  db: TestDatabase;
  dataSource: DataSource;
}

/**
 * Starts a service on a loopback port against a fresh test database (or the given one):
 * its real root module and configureApp on the Fastify adapter, as main.ts does. close()
 * stops the app and drops the database it created.
 */
export async function startTestService(
  service: TestServiceDefinition,
  options: TestServiceOptions = {},
): Promise<RunningTestService> {
  const db = options.db ?? (await createTestDatabase(options.label ?? service.name));
  let t: TestApp;
  try {
    t = await startTestApp({
      module: service.module({ ...service.defaults, DATABASE_URL: db.url, ...options.env }),
      configure: service.configure,
      clock: options.clock,
      override: options.override,
    });
  } catch (error) {
    if (!options.db) await db.drop();
    throw error;
  }
  return {
    ...t,
    db,
    dataSource: t.app.get(DataSource),
    close: async () => {
      await t.close();
      if (!options.db) await db.drop();
    },
  };
}
