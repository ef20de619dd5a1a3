export * from './commands/auth-commands';
export * from './commands/client-commands';
export * from './commands/tutor-commands';
export * from './commands/user-commands';
export * from './errors';
export * from './events';
export * from './roles';
export * from './values';
