import { createUpcaster } from '@agency/contracts';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateEventStore, PostgresEventStore } from './postgres/postgres-event-store';

/**
 * Event evolution through the store: a `UserRegistered` written at version 1 (`name`) is read
 * after a version 2 (`displayName`, `initials`) is introduced, and every way of reading hands
 * out the version-2 payload. The registry is the contracts' `createUpcaster`, given the v2.
 */
const v2 = createUpcaster(new Map([['UserRegistered', 2]]), {
  UserRegistered: {
    1: ({ name, ...rest }) => ({
      ...rest,
      displayName: name,
      initials: String(name)
        .split(' ')
        .map((word) => word[0])
        .join(''),
    }),
  },
});

const v1Data = { userId: 'u1', username: 'ann', role: 'admin', tutorId: null, name: 'Ann Lee' };
const v2Data = { userId: 'u1', username: 'ann', role: 'admin', tutorId: null, displayName: 'Ann Lee', initials: 'AL' };
const metadata = { userId: 'admin', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };

describe('the event store upcasts what it reads (real PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let store: PostgresEventStore;
  let plain: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 5 });
    await migrateEventStore(pool);
    store = new PostgresEventStore(pool, { upcast: v2, pollIntervalMs: 50 });
    plain = new PostgresEventStore(pool);
    // Written by the release that knew only version 1: one with the version stamped, one from before stamping.
    await plain.appendToStream(
      'user-u1',
      [{ type: 'UserRegistered', data: v1Data, metadata: { ...metadata, schemaVersion: 1 } }],
      {
        expectedRevision: 'no_stream',
      },
    );
    await plain.appendToStream('user-u2', [{ type: 'UserRegistered', data: { ...v1Data, userId: 'u2' }, metadata }], {
      expectedRevision: 'no_stream',
    });
    // Written by the release that knows version 2.
    await store.appendToStream(
      'user-u3',
      [{ type: 'UserRegistered', data: { ...v2Data, userId: 'u3' }, metadata: { ...metadata, schemaVersion: 2 } }],
      {
        expectedRevision: 'no_stream',
      },
    );
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it('stores the version-1 row as it was written', async () => {
    const row = await pool.query(`select data, metadata from es.events where stream_id = 'user-u1'`);
    expect(row.rows[0].data).toEqual(v1Data);
    expect(row.rows[0].metadata.schemaVersion).toBe(1);
  });

  it('readStream hands out the version-2 payload, stamped version 2', async () => {
    const [event] = await store.readStream('user-u1');
    expect(event?.data).toEqual(v2Data);
    expect(event?.metadata.schemaVersion).toBe(2);
    // No version stamped means version 1.
    const [unstamped] = await store.readStream('user-u2');
    expect(unstamped?.data).toEqual({ ...v2Data, userId: 'u2' });
  });

  it('readAll and a subscription hand out version 2 for old and new events alike', async () => {
    const all = await store.readAll();
    expect(all.map((event) => event.data)).toEqual([v2Data, { ...v2Data, userId: 'u2' }, { ...v2Data, userId: 'u3' }]);
    const live = await firstValueFrom(store.subscribeToAll().pipe(take(3), toArray()));
    expect(live.map((event) => [event.data, event.metadata.schemaVersion])).toEqual(
      all.map((event) => [event.data, 2]),
    );
  });

  it("with the product's registry (everything at version 1) the payload is handed out unchanged", async () => {
    const [event] = await plain.readStream('user-u1');
    expect(event?.data).toEqual(v1Data);
    expect(event?.metadata.schemaVersion).toBe(1);
  });
});
