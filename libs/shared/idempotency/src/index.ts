export * from './request-hash';
export * from './idempotency-keys';
export * from './idempotency-keys.sql';
export * from './run-idempotent';
export * from './idempotency-key.columns';
