export * from './commands/client-commands';
export * from './errors';
export * from './events';
export * from './roles';
export * from './values';
