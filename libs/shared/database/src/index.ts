export * from './database.options';
export * from './database.module';
export * from './embedded-postgres';
export * from './migrations';
export * from './migration-command';
export * from './read-query';
export * from './postgres-error';
export * from './listened-client';
