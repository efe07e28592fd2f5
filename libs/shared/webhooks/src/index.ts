export * from './signature';
export * from './signer';
export * from './verifier';
export * from './target-policy';
