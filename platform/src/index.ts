export * from './data-guards';
export * from './event-store/event-store';
export * from './field-visibility';
export * from './http-errors';
export * from './session-token';
