export * from './api-description';
export * from './data-guards';
export * from './event-store/event-store';
export * from './field-visibility';
export * from './front-door';
export * from './http-errors';
export * from './session-token';
