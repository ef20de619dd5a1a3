export * from './port';
export { migrateEventStore, PostgresEventStore } from './postgres/postgres-event-store';
