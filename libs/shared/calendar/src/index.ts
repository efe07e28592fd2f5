export * from './local-date';
export * from './clock';
