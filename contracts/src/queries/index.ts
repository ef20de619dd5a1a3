export * from './client-queries';
export * from './engagement-queries';
export * from './health-queries';
export * from './invoice-queries';
export * from './lesson-queries';
export * from './query-values';
export * from './tutor-queries';
export * from './user-queries';
