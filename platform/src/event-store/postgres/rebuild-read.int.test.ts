import { createUpcaster } from '@agency/contracts';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparePositions, type Position, type RecordedEvent } from '../port';
import { migrateEventStore, PostgresEventStore } from './postgres-event-store';
import { eventsOfTypesUpTo } from './rebuild-read';

/** `Shelved` is at version 2 (v1 had `title`); `Lent` has no upcaster for its stored version 0. */
const upcast = createUpcaster(
  new Map([
    ['Shelved', 2],
    ['Lent', 1],
    ['Noted', 1],
  ]),
  {
    Shelved: { 1: ({ title, ...rest }) => ({ ...rest, name: title }) },
  },
);
const metadata = { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };

/** An event as compared: an unreadable one by its error, since its payload throws on any use. */
const comparable = ({ data, readError, ...rest }: RecordedEvent) => ({
  ...rest,
  data: readError ? `unreadable: ${readError.message}` : data,
});

describe("a rebuild's reading of the store's table: some event types, up to a position", () => {
  let drop: () => Promise<void>;
  let pool: pg.Pool;
  let store: PostgresEventStore;
  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url, max: 5 });
    await migrateEventStore(pool);
    store = new PostgresEventStore(pool, { upcast });
  });
  afterAll(async () => {
    await pool.end();
    await drop();
  });

  it('reads what the store reads of those types up to that position, page by page, and nothing else', async () => {
    const append = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      store.appendToStream('s-1', [{ type, data, metadata: { ...metadata, ...extra } }], { expectedRevision: 'any' });
    await append('Shelved', { title: 'Emma' }, { schemaVersion: 1 });
    await append('Noted', { text: 'skipped' });
    // Transaction ids from here on have one digit more: read as text, they would sort first.
    const { rows } = await pool.query('select pg_current_xact_id()::text::bigint as id');
    const next = 10 ** String(rows[0].id).length;
    await pool.query(
      `do $$ begin for i in 1..${next - rows[0].id} loop perform pg_current_xact_id(); commit; end loop; end $$`,
    );
    await append('Shelved', { name: 'Persuasion' }, { schemaVersion: 2 });
    await append('Lent', { to: 'Ann' }, { schemaVersion: 0 });
    // Copied from another store: it keeps the time it was first recorded.
    await append('Shelved', { name: 'Sanditon' }, { schemaVersion: 2, recordedAt: '2020-02-02T10:00:00.123Z' });
    const upTo = await store.head();
    await append('Shelved', { name: 'after the position' }, { schemaVersion: 2 });

    const expected = (await store.readAll({ limit: 100 }))
      .filter((event) => event.type !== 'Noted' && comparePositions(event.position, upTo) <= 0)
      .map(comparable);
    expect(expected.map((event) => event.type)).toEqual(['Shelved', 'Shelved', 'Lent', 'Shelved']);

    const reader = eventsOfTypesUpTo(pool, ['Shelved', 'Lent'], upTo, upcast);
    const read: RecordedEvent[] = [];
    let from: Position | undefined;
    for (;;) {
      const page = await reader.readAll({ from, limit: 3 });
      if (page.length === 0) break;
      read.push(...page);
      from = page.at(-1)?.position;
    }
    expect(read.map(comparable)).toEqual(expected);
    expect(read[0]?.data).toEqual({ name: 'Emma' });
    expect(read.at(-1)?.metadata.recordedAt).toBe('2020-02-02T10:00:00.123Z');
    expect(await reader.head()).toEqual(upTo);
    expect(await eventsOfTypesUpTo(pool, [], upTo, upcast).readAll()).toEqual([]);
  });
});
