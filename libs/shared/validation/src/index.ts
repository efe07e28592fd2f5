export * from './decorators';
export * from './validation.pipe';
export * from './text-safety.pipe';
export * from './pattern-param.pipe';
export * from './nest-container';
export * from './person-name';
export * from './passport-dates';
