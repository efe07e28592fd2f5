export * from './logging';
export * from './redact-log';
export * from './rate-limited-log';
export * from './log-safe-error';
export * from './failure-log';
