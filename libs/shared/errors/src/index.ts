export * from './domain.errors';
