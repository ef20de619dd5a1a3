import { PostgresEventStore, type RecordedEvent } from '@agency/platform';
import { inTransaction } from '@agency/platform/transaction';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchUpStep, LIVE_SCHEMA, readStatuses } from './projection-runner';
import type { Projection } from './read-models/projection';
import { ensureReadModels } from './read-models/read-schema';

const meta = { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };

/** Records every event it sees. */
const seen: string[] = [];
const recorder: Projection = {
  name: 'recorder',
  version: 1,
  handlers: {
    Noted: async (_sql, event: RecordedEvent) => {
      seen.push(String(event.data.label));
    },
  },
};

describe('a recovering projection never takes an empty read-ahead for the head of the log', () => {
  let pool: pg.Pool;
  let store: PostgresEventStore;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    store = await PostgresEventStore.connect(database.url);
    pool = new pg.Pool({ connectionString: database.url });
    await ensureReadModels(pool, store, [recorder]);
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await drop();
  });

  it('applies an event committed after the read-ahead was taken, before it follows the live log', async () => {
    // Recovering: it had stopped, and catches up on its own before it follows the live log again.
    await pool.query('update read.projection_checkpoints set following = false');
    const [status] = (await readStatuses(pool, LIVE_SCHEMA)).values();
    // The read-ahead was taken (empty) before this event committed: a live batch could have applied
    // it to the following projections in between, and this one would then follow past it.
    const stale = { from: status!.position, events: Promise.resolve([] as RecordedEvent[]) };
    await store.appendToStream('note-1', [{ type: 'Noted', data: { label: 'late' }, metadata: meta }], {
      expectedRevision: 'no_stream',
    });
    const step = await inTransaction(pool, (sql) =>
      catchUpStep(sql, store, LIVE_SCHEMA, [recorder], { follow: true, ahead: stale }),
    );
    expect(step.read).toBe(1);
    expect(seen).toEqual(['late']);
    // Only once a read under the lock finds nothing more does it follow the live log.
    await inTransaction(pool, (sql) => catchUpStep(sql, store, LIVE_SCHEMA, [recorder], { follow: true }));
    expect([...(await readStatuses(pool, LIVE_SCHEMA)).values()][0]?.following).toBe(true);
  });
});
