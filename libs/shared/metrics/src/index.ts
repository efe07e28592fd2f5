export * from './metrics';
export * from './metrics.module';
export * from './http-metrics';
export * from './serve-metrics';
export * from './database-metrics';
