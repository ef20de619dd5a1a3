import { type Position, PostgresEventStore } from '@agency/platform';
import { eventsOfTypesUpTo } from '@agency/platform/event-store/postgres/rebuild-read';
import { seedDemoData } from '@agency/scripts/demo-data';
import { openPersonalData } from '@agency/scripts/personal-data';
import { startTestProduct, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projections } from './read-models';
import { rebuildReadModels } from './read-models/read-schema';

/** Every row of every table in `read`, so two read models can be compared whole. */
async function snapshot(db: pg.Pool) {
  const tables = await db.query(
    "select table_name from information_schema.tables where table_schema = 'read' and table_name <> 'projection_checkpoints' order by 1",
  );
  const rows: Record<string, unknown[]> = {};
  for (const { table_name } of tables.rows) {
    const result = await db.query(`select * from read."${table_name}" t order by t::text`);
    rows[table_name] = result.rows;
  }
  return rows;
}

describe('npm run rebuild', () => {
  let product: TestProduct;
  let db: pg.Pool;
  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
  });
  afterAll(async () => {
    await db.end();
    await product.dispose();
  });

  it('rebuilds every read model from the events into exactly the rows the live projections made', async () => {
    // The demo agency touches every area through the real routes: clients, tutors, users,
    // engagements with history, lessons, locked months, invoices and payments.
    const seeded = await seedDemoData(product, 10);
    expect(seeded).toMatch(/engagements.*lessons.*invoices/s);
    const live = await snapshot(db);
    for (const table of ['clients', 'tutors', 'engagement_periods', 'lessons', 'locked_months', 'invoices']) {
      expect(live[table]?.length, `rows in read.${table}`).toBeGreaterThan(0);
    }

    // What a killed rebuild leaves: its scratch copy and a retired live schema. A verify's scratch
    // is made without the rebuild lock and may be in use: it stays.
    const leftovers = ['read_build_all_1_aaaaaa', 'read_build_retired_1_bbbbbb', 'read_build_verify_1_cccccc'];
    for (const schema of leftovers) {
      await db.query(`create schema ${schema}`);
      await db.query(`create table ${schema}.lessons (id text)`);
    }
    // Read as npm run rebuild reads: through the personal-data layer, with a key cache of its own.
    const personalData = await openPersonalData(product.dataDir, product.databaseUrl);
    const store = personalData.protect(await PostgresEventStore.connect(product.databaseUrl));
    try {
      // And from the store's table, as npm run rebuild does (the lessons loaded by the database).
      const storeTable = {
        only: (types: string[], upTo: Position) => personalData.protect(eventsOfTypesUpTo(db, types, upTo)),
      };
      await rebuildReadModels(db, store, projections, undefined, { storeTable });
    } finally {
      await store.close();
      await personalData.close();
    }
    expect(await snapshot(db)).toEqual(live);
    const schemas = await db.query("select nspname from pg_namespace where nspname like 'read_build%' order by 1");
    expect(schemas.rows.map((row) => row.nspname)).toEqual(['read_build_verify_1_cccccc']);
    await db.query('drop schema read_build_verify_1_cccccc cascade');
  });
});
