// Loaded first by each service's main.ts (through its tracing.ts).
export * from './correlation';
export * from './instrumentations';
export * from './sampling';
export * from './tracing';
