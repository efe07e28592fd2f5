export * from './environment';
export * from './auth-settings';
