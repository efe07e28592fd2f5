import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { createHttpAdapter } from '@bank/shared/http';
import { Clock } from '@bank/shared/calendar';

export interface TestAppOptions {
  module: DynamicModule | Type<unknown>;
  /** The service's own configureApp, the same one main.ts calls. */
  configure: (app: NestFastifyApplication) => void | Promise<void>;
  clock?: Clock;
  /** Further provider overrides (only for what is outside the system). */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

export interface TestApp {
  app: NestFastifyApplication;
  /** Base URL of the app listening on a loopback port, e.g. http://127.0.0.1:41234 */
  url: string;
  close(): Promise<void>;
}

/** Boots the real application on a loopback port (real HTTP), with the service's real setup. */
export async function startTestApp(options: TestAppOptions): Promise<TestApp> {
  let builder = Test.createTestingModule({ imports: [options.module] });
  if (options.clock) builder = builder.overrideProvider(Clock).useValue(options.clock);
  if (options.override) builder = options.override(builder);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(), {
    bufferLogs: true,
  });
  await options.configure(app);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return {
    app,
    url: `http://127.0.0.1:${address.port}`,
    close: () => (app as INestApplication).close(),
  };
}
