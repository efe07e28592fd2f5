export * from './problem';
export * from './error-shape.filter';
