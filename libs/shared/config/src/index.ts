export * from './environment';
export * from './auth-settings';
export * from './describe';
export * from './secret-strength';
