// Loaded before the modules it instruments: import only @opentelemetry/* and node:* here.
export * from './correlation';
export * from './tracing';
