import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  DynamicModule,
  Global,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { registerDatabaseMetrics } from './database-metrics';
import { Metrics, METRICS_PATH, METRICS_SETTINGS, MetricsSettings } from './metrics';

/**
 * The service's Metrics (global, so every feature registers its own series), the database
 * pool gauges, and, with METRICS_PORT, /metrics on a port of its own (else configureHttpApp
 * serves it on the service's port, see serveMetrics).
 */
@Global()
@Module({})
export class MetricsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  constructor(
    private readonly metrics: Metrics,
    private readonly moduleRef: ModuleRef,
  ) {}

  static forRoot(settings: MetricsSettings): DynamicModule {
    return {
      module: MetricsModule,
      providers: [{ provide: METRICS_SETTINGS, useValue: settings }, Metrics],
      exports: [Metrics],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.metrics.enabled) return;
    const dataSource = this.dataSource();
    if (dataSource) registerDatabaseMetrics(this.metrics, dataSource);
    const { port, host } = this.metrics.settings;
    if (port === undefined) return;
    this.server = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (request.method !== 'GET' || path !== METRICS_PATH) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
        return;
      }
      this.metrics.scrape().then(
        (text) => response.writeHead(200, { 'content-type': this.metrics.contentType }).end(text),
        (error: unknown) => {
          this.logger.error({ err: error }, 'Metrics collection failed');
          response
            .writeHead(500, { 'content-type': 'text/plain' })
            .end('Metrics collection failed\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject).listen(port, host, () => resolve());
    });
    this.logger.log(`Metrics on http://${host}:${this.port()}${METRICS_PATH}`);
  }

  /** The application's TypeORM DataSource; none in a composition without the database (tests). */
  private dataSource(): DataSource | null {
    try {
      return this.moduleRef.get(DataSource, { strict: false });
    } catch {
      return null;
    }
  }

  /** The port /metrics listens on when it has its own (tests ask for port 0). */
  port(): number | null {
    const address = this.server?.address() as AddressInfo | null | undefined;
    return address ? address.port : null;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
