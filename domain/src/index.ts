export * as client from './client/client';
export * from './shared/calendar';
export * from './shared/decider';
export * from './shared/money';
export * as user from './user/user';
