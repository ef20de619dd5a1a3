export * as client from './client/client';
export * as engagement from './engagement/engagement';
export * as invoice from './invoice/invoice';
export * from './shared/calendar';
export * from './shared/decider';
export * from './shared/money';
export * as timesheet from './timesheet/timesheet';
export * as tutor from './tutor/tutor';
export * as user from './user/user';
