export * from './health/health-response.dto';
export * from './health/health.controller';
export * from './health/health.module';
export * from './core.module';
export * from './configure';
export * from './run-service';
