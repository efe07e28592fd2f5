import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { FastifyReply } from 'fastify';
import { HealthResponse } from './health-response.dto';

export const SERVICE_NAME = Symbol('SERVICE_NAME');

@ApiTags('health')
@Controller('api/health')
export class HealthController {
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
    try {
      await this.health.check([() => this.database.pingCheck('database', { timeout: 2_000 })]);
      return { status: 'UP', service: this.serviceName, checks: { database: { status: 'UP' } } };
    } catch {
      void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
      return {
        status: 'DOWN',
        service: this.serviceName,
        checks: { database: { status: 'DOWN' } },
      };
    }
  }
}
