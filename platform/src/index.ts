export * from './data-guards';
export * from './event-store/event-store';
export * from './http-errors';
export * from './session-token';
