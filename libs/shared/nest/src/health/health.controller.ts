import { Controller, Get, HttpStatus, Inject, OnModuleDestroy, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { FastifyReply } from 'fastify';
import { HealthResponse, ProbeResponse } from './health-response.dto';

export const SERVICE_NAME = Symbol('SERVICE_NAME');

/**
 * The spec's health check and the Kubernetes probes. `live`: the process answers (no database:
 * a database outage must not restart every pod). `ready`: the database answers and the service
 * is not shutting down (from the first shutdown hook on, so the endpoints drop the pod while its
 * requests in flight finish). There is no separate startup endpoint: the application listens
 * only once configuration, database connection and migrations are done; before that, while
 * start-up waits for the database, a stand-in answers the same paths (start-up-wait.ts: `live`
 * 200, `ready` 503), so readiness is what marks the service started
 * (docs/decisions/0029-backlog-gauges-probes-alerts.md).
 */
@ApiTags('health')
@Controller('api/health')
export class HealthController implements OnModuleDestroy {
  private shuttingDown = false;

  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    @Inject(SERVICE_NAME) private readonly serviceName: string,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Health of the service and its database' })
  @ApiOkResponse({ type: HealthResponse, description: 'UP: the service and its database answer' })
  @ApiServiceUnavailableResponse({
    type: HealthResponse,
    description: 'DOWN: the database does not answer',
  })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthResponse> {
    if (await this.databaseAnswers()) {
      return { status: 'UP', service: this.serviceName, checks: { database: { status: 'UP' } } };
    }
    void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
    return {
      status: 'DOWN',
      service: this.serviceName,
      checks: { database: { status: 'DOWN' } },
    };
  }

  @Get('live')
  @ApiOperation({ summary: 'Liveness probe: the process answers (the database is not asked)' })
  @ApiOkResponse({ type: ProbeResponse, description: 'UP' })
  live(): ProbeResponse {
    return { status: 'UP', service: this.serviceName };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness probe: the database answers and the service is not shutting down',
  })
  @ApiOkResponse({ type: ProbeResponse, description: 'UP: send traffic here' })
  @ApiServiceUnavailableResponse({
    type: ProbeResponse,
    description: 'DOWN: the database does not answer, or the service is shutting down',
  })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ProbeResponse> {
    if (!this.shuttingDown && (await this.databaseAnswers())) {
      return { status: 'UP', service: this.serviceName };
    }
    void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: 'DOWN', service: this.serviceName };
  }

  /** The first shutdown hook Nest calls (SIGTERM): not ready from here on. */
  onModuleDestroy(): void {
    this.shuttingDown = true;
  }

  private async databaseAnswers(): Promise<boolean> {
    try {
      await this.health.check([() => this.database.pingCheck('database', { timeout: 2_000 })]);
      return true;
    } catch {
      return false;
    }
  }
}
