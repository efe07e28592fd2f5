export * from './node-runtime';
