import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { eventStoreContract } from '../testing/event-store-contract';
import { migrateEventStore, PostgresEventStore } from './postgres/postgres-event-store';

// On the run's shared cluster like every other file: a reader's horizon counts only the appenders
// of its own database (all-horizon.ts), so the transactions other files hold open do not hold it back.
eventStoreContract('PostgreSQL', async () => {
  const database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 20 });
  await migrateEventStore(pool);
  return { store: new PostgresEventStore(pool), dispose: database.drop };
});
