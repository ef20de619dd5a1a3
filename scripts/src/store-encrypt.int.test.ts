import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventStore, PostgresEventStore } from '@agency/platform';
import { PersonalDataEventStore } from '@agency/platform/personal-data';
import { projections, rebuildReadModels } from '@agency/projection-service';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyStore, verifyCopy } from './copy-store';
import { seedDemoData } from './demo-data';
import { encryptStore } from './encrypt-store';
import { openPersonalData, type PersonalData } from './personal-data';
import { readModels } from './testing/database-dump';
import { createTestDatabase } from './testing/test-database';
import { startTestProduct, type TestProduct } from './testing/test-product';

/** The text of every stored event, ciphertexts left out (random bytes could hold a short name by chance). */
const eventsText = async (db: pg.Pool) =>
  (await db.query('select e::text as t from es.events e order by global_position')).rows
    .map((row) => row.t)
    .join('\n')
    .replace(/"(ct|iv|tag)": "[A-Za-z0-9+/=]*"/g, '');

const columns = async (db: pg.Pool) =>
  (
    await db.query(
      `select global_position, transaction_id::text, stream_id, stream_revision, event_id, event_type, metadata,
              recorded_at::text from es.events order by global_position`,
    )
  ).rows;

/**
 * A store written with personal data in clear (appended through the plain
 * PostgreSQL store, not the personal-data layer) is encrypted by `encryptStore` (npm run
 * store:encrypt): afterwards no name or e-mail is left in es.events, every position, id,
 * revision, metadata and recorded time is as it was, reading through the personal-data layer
 * gives the clear events back, the read models are dropped, and a rebuild gives the same rows.
 */
describe('store:encrypt', () => {
  let product: TestProduct;
  let clear: { url: string; drop: () => Promise<void> };
  let db: pg.Pool;
  let original: PersonalData;
  let source: EventStore;
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-encrypt-'));

  beforeAll(async () => {
    product = await startTestProduct();
    await seedDemoData(product, 3);
    original = await openPersonalData(product.dataDir, product.databaseUrl);
    source = original.protect(await PostgresEventStore.connect(product.databaseUrl, { max: 2 }));
    clear = await createTestDatabase();
    db = new pg.Pool({ connectionString: clear.url, max: 3 });
  });
  afterAll(async () => {
    await db.end();
    await source.close();
    await original.close();
    await product.dispose();
    await clear.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves no personal field in clear, keeps every event as it was, and a rebuild matches', async () => {
    // The demo agency's events, decrypted, into a store that never encrypted anything.
    const plain = await PostgresEventStore.connect(clear.url, { max: 2 });
    await copyStore(source, plain);
    const shop = new pg.Pool({ connectionString: product.databaseUrl, max: 1 });
    const personal = (
      await shop.query<{ v: string }>(
        `select unnest(array[first_name, last_name, email]) as v from read.contacts
         union select unnest(array[first_name, last_name]) from read.children
         union select unnest(array[first_name, last_name, email]) from read.tutors`,
      )
    ).rows
      .map((row) => row.v)
      .filter((value) => value.length >= 4);
    await shop.end();
    expect(personal.length).toBeGreaterThan(10);
    const before = await eventsText(db);
    for (const value of personal) expect(before, `${value} in clear before`).toContain(value);
    await rebuildReadModels(db, plain, projections);
    const built = await readModels(db);
    const kept = await columns(db);
    await plain.close();

    const personalData = await openPersonalData(dataDir, clear.url, { PERSONAL_DATA_KEY: '' });
    try {
      const outcome = await encryptStore(db, personalData.vault, { pageSize: 100 });
      expect(outcome.events).toBe(kept.length);
      expect(outcome.encrypted).toBeGreaterThan(10);
      expect(outcome.dropped).toContain('read');

      const after = await eventsText(db);
      for (const value of personal) expect(after, `${value} still in clear`).not.toContain(value);
      expect(after).toContain('$enc');
      expect(await columns(db)).toEqual(kept);
      expect((await db.query("select to_regclass('es.events_encrypted') as t")).rows[0].t).toBeNull();
      expect((await db.query("select count(*)::int as n from pg_namespace where nspname = 'read'")).rows[0].n).toBe(0);

      const store = await PostgresEventStore.connect(clear.url, { max: 2 });
      const protectedStore = new PersonalDataEventStore(store, personalData.vault);
      try {
        // Read through the personal-data layer, the same events as the product's own store.
        expect((await verifyCopy(source, protectedStore)).mismatches).toEqual([]);
        await rebuildReadModels(db, protectedStore, projections);
        expect(await readModels(db)).toEqual(built);
        // Appends follow the copied events.
        const id = randomUUID();
        const metadata = { userId: 'test', role: 'admin', commandId: id, correlationId: id, causationId: id };
        await store.appendToStream('check-after-encrypt', [{ id, type: 'Checked', data: {}, metadata }], {
          expectedRevision: 'no_stream',
        });
        const last = await db.query('select stream_id from es.events order by global_position desc limit 1');
        expect(last.rows[0].stream_id).toBe('check-after-encrypt');
      } finally {
        await store.close();
      }
    } finally {
      await personalData.close();
    }
  });
});
