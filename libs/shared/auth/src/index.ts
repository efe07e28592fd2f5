export * from './auth.settings';
export * from './auth.errors';
export * from './public-key';
export * from './token.verifier';
export * from './bearer-auth.guard';
export * from './require-scopes.decorator';
export * from './auth.module';
