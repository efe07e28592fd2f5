export * from './domain-error';
export * from './problem';
export * from './card-issue-error-body';
export * from './registration-error-body';
