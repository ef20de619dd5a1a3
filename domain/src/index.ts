export * as client from './client/client';
export * from './shared/calendar';
export * from './shared/decider';
export * as user from './user/user';
