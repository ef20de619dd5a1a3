import { randomUUID } from 'node:crypto';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { EventToAppend, Position, RecordedEvent } from '../event-store/port';
import {
  migrateEventStore,
  PostgresEventStore,
  type SubscriptionStep,
} from '../event-store/postgres/postgres-event-store';

type StoreOptions = ConstructorParameters<typeof PostgresEventStore>[1];

/** Who, which command and why, as every appended event carries them. */
export const eventMetadata = () => ({
  userId: 'user-1',
  role: 'admin',
  commandId: randomUUID(),
  correlationId: randomUUID(),
  causationId: randomUUID(),
});

/** An event of `type` with no data. */
export const anEvent = (type: string): EventToAppend => ({ type, data: {}, metadata: eventMetadata() });

/**
 * For a describe block of the PostgreSQL adapter's tests: a test database with the event store's
 * schema (and `others` empty databases of the same cluster). What a test opens through it (stores,
 * clients, followers, or anything it adds to `closers`) is closed after the block, then the
 * databases are dropped.
 */
export function usePostgresStoreDatabase({ others = 0 } = {}) {
  const closers: (() => Promise<unknown>)[] = [];
  const databases: { url: string; drop: () => Promise<void> }[] = [];
  beforeAll(async () => {
    for (let i = 0; i <= others; i++) databases.push(await createTestDatabase());
    const pool = new pg.Pool({ connectionString: databases[0]?.url });
    await migrateEventStore(pool);
    await pool.end();
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    for (const database of databases) await database.drop();
  });
  const url = (index = 0) => {
    const database = databases[index];
    if (!database) throw new Error('The test database is made in beforeAll');
    return database.url;
  };
  const open = (options: StoreOptions = {}, at = url()) => {
    const store = new PostgresEventStore(new pg.Pool({ connectionString: at, max: 5 }), options);
    closers.push(() => store.close());
    return store;
  };
  return {
    closers,
    /** The store's database; `otherUrl(i)`, the i-th other one. */
    url: () => url(),
    otherUrl: (index = 0) => url(index + 1),
    open,
    /** A store polling every 200 ms whose subscription steps and log lines the test reads. */
    observed() {
      const steps: SubscriptionStep[] = [];
      const logged: string[] = [];
      const store = open({
        pollIntervalMs: 200,
        log: (line) => logged.push(line),
        onSubscriptionStep: (s) => steps.push(s),
      });
      return { store, steps, logged };
    },
    async connect(at = url()) {
      const client = new pg.Client({ connectionString: at });
      await client.connect();
      closers.push(() => client.end());
      return client;
    },
    /** Runs `followAll` until the block ends, collecting what it delivers. */
    follow(store: PostgresEventStore, from: Position, onBatch?: (events: RecordedEvent[]) => Promise<void>) {
      const delivered: RecordedEvent[] = [];
      const stop = new AbortController();
      const running = store.followAll(
        from,
        async (events) => {
          delivered.push(...events);
          await onBatch?.(events);
        },
        { signal: stop.signal },
      );
      closers.push(async () => {
        stop.abort();
        await running;
      });
      return { delivered, running };
    },
  };
}
