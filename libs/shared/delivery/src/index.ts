export * from './backoff';
export * from './delivery-table.sql';
export * from './delivery-store';
export * from './delivery-queue';
export * from './delivery-service';
export * from './delivery-metrics';
