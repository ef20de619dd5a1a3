import { eventStoreContract } from '../testing/event-store-contract';
import { EsdbEventStore } from './esdb/esdb-event-store';

// Run by `npm run test:esdb` only (vitest.esdb.config.ts); its global setup has already checked
// that EVENTSTORE_CONNECTION_STRING names a server that answers. Every test uses streams of its
// own, so the server need not be empty.
eventStoreContract('EventStoreDB', async () => {
  const store = EsdbEventStore.connect(process.env.EVENTSTORE_CONNECTION_STRING as string);
  return { store, dispose: async () => {} };
});
