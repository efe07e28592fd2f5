// Loaded before the modules it instruments: import only @opentelemetry/* and node:* here.
export * from './client-spans';
export * from './correlation';
export * from './tracing';
