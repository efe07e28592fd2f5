export * from './formats';
export * from './generators';
export * from './request-id';
