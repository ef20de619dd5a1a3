import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { eventStoreContract } from '../testing/event-store-contract';
import { migrateEventStore, PostgresEventStore } from './postgres/postgres-event-store';

eventStoreContract('PostgreSQL', async () => {
  const database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 20 });
  await migrateEventStore(pool);
  return { store: new PostgresEventStore(pool), dispose: database.drop };
});
