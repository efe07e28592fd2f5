export * from './test-database';
export * from './test-app';
export * from './test-service';
export * from './waiting';
export * from './test-process';
