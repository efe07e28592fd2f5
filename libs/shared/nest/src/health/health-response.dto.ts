import { ApiProperty } from '@nestjs/swagger';

class HealthCheckEntry {
  @ApiProperty({ enum: ['UP', 'DOWN'] })
  status!: 'UP' | 'DOWN';
}

class HealthChecks {
  @ApiProperty({ type: HealthCheckEntry })
  database!: HealthCheckEntry;
}

export class HealthResponse {
  @ApiProperty({ enum: ['UP', 'DOWN'], example: 'UP' })
  status!: 'UP' | 'DOWN';

  @ApiProperty({ example: 'client-registration' })
  service!: string;

  @ApiProperty({ type: HealthChecks })
  checks!: HealthChecks;
}

/** The body of the liveness and readiness probes. */
export class ProbeResponse {
  @ApiProperty({ enum: ['UP', 'DOWN'], example: 'UP' })
  status!: 'UP' | 'DOWN';

  @ApiProperty({ example: 'card-issue' })
  service!: string;
}
