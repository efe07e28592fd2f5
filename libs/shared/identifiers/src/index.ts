export * from './formats';
export * from './generators';
