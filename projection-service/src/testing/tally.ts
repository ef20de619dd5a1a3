import { type EventStore, PostgresEventStore } from '@agency/platform';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import type { Projection } from '../read-models/projection';

export const meta = { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };

/** Counts every application of every event: a second application would show as 2. */
export const tally: Projection = {
  name: 'tally',
  version: 1,
  handlers: {
    Tallied: async (sql, event) => {
      await sql.query('create table if not exists tally (event_id text primary key, applied int not null)');
      await sql.query(
        'insert into tally values ($1, 1) on conflict (event_id) do update set applied = tally.applied + 1',
        [event.id],
      );
    },
  },
};

/** Checks `tries` times, `everyMs` apart, until `check` holds; then throws, naming `what`. */
export async function waitUntil(check: () => Promise<boolean>, what: string, tries: number, everyMs: number) {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** A fresh database with an event store and a pool on it; `close` ends both and drops the database. */
export async function openTestStore(): Promise<{ pool: pg.Pool; store: EventStore; close: () => Promise<void> }> {
  const database = await createTestDatabase();
  const store = await PostgresEventStore.connect(database.url);
  const pool = new pg.Pool({ connectionString: database.url });
  return {
    pool,
    store,
    close: async () => {
      await store.close();
      await pool.end();
      await database.drop();
    },
  };
}
