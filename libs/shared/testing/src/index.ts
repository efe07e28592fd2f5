export * from './test-database';
export * from './test-app';
export * from './test-service';
export * from './waiting';
export * from './exclusive';
export * from './test-process';
export * from './figures';
export * from './pgbouncer';
export * from './metrics-text';
export * from './otlp-receiver';

export * from './test-token-issuer';
export * from './declared-headers';
