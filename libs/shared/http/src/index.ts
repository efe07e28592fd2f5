export * from './http-adapter';
export * from './route-methods';
export * from './cors';
export * from './trust-proxy';
