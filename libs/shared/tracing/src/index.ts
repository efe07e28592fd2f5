// Loaded first by each service's main.ts (through its tracing.ts).
export * from './client-spans';
export * from './correlation';
export * from './pg-spans';
export * from './tracing';
