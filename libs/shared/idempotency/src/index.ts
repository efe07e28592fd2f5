export * from './request-hash';
export * from './idempotency-keys';
export * from './idempotency-keys.sql';
