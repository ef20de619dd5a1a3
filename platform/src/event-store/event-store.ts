export { EsdbEventStore, type EsdbEventStoreOptions } from './esdb/esdb-event-store';
export { observeFollow } from './observe-follow';
export * from './port';
export {
  migrateEventStore,
  PostgresEventStore,
  type PostgresEventStoreOptions,
  type SubscriptionStep,
} from './postgres/postgres-event-store';
export {
  assertStorePositionsValid,
  checkStorePositions,
  rebaseEventStore,
  type StorePositions,
  StorePositionsInvalid,
} from './postgres/store-positions';
