import { todayIn } from '@agency/domain';
import { type EventStore, PostgresEventStore } from '@agency/platform';
import { openPersonalData, type PersonalData } from '@agency/scripts/personal-data';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityIn, foundByTime } from './activity-queries';

/**
 * The activity log of a period is read by the time events were recorded (an index of es.events),
 * a page at a time: never `$all` from its start.
 */
describe('activity log by time (real PostgreSQL)', () => {
  let product: TestProduct;
  let personalData: PersonalData;
  let store: EventStore;
  let db: pg.Pool;
  let readsOfAll = 0;
  /** The product's store, counting the reads of `$all`. */
  let counted: EventStore;
  const today = todayIn('Europe/London', new Date());

  beforeAll(async () => {
    product = await startTestProduct();
    const admin = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
    for (const name of ['Ann', 'Bob', 'Cat']) await admin.post('/api/clients/contact', contact(name, 'Active'));
    db = new pg.Pool({ connectionString: product.databaseUrl, options: '-c search_path=read' });
    personalData = await openPersonalData(product.dataDir, product.databaseUrl);
    store = personalData.protect(await PostgresEventStore.connect(product.databaseUrl));
    counted = {
      ...store,
      readStream: (streamId, options) => store.readStream(streamId, options),
      head: () => store.head(),
      readAll: (options) => {
        readsOfAll++;
        return store.readAll(options);
      },
    } as EventStore;
  });
  afterAll(async () => {
    await db?.end();
    await store?.close();
    await personalData?.close();
    await product?.dispose();
  });

  it("finds the period's commands without reading $all, as a scan of $all finds them", async () => {
    const found = await activityIn(db, counted, 'Europe/London', { from: today, to: today });
    expect(readsOfAll).toBe(0);
    expect(found.filter((entry) => entry.what.join(' ').includes('Active')).length).toBe(3);
    // Recorded on another day: only that day's log has it.
    const moved = await db.query(
      `update es.events set recorded_at = '2020-01-15T10:00:00Z'
        where event_id = (select event_id from es.events where event_type = 'ClientRegistered' limit 1)
        returning metadata->>'commandId' as command_id`,
    );
    const commandId = moved.rows[0].command_id;
    const then = await activityIn(db, counted, 'Europe/London', { from: '2020-01-15', to: '2020-01-15' });
    expect(then.map((entry) => entry.commandId)).toContain(commandId);
    const now = await activityIn(db, counted, 'Europe/London', { from: today, to: today });
    expect(now.map((entry) => entry.commandId)).not.toContain(commandId);
    expect(readsOfAll).toBe(0);
    await db.query(
      `update es.events set recorded_at = now() where metadata->>'commandId' = $1 and event_type = 'ClientRegistered'`,
      [commandId],
    );
  });

  it('pages through a period: the same events, once each, in $all order, whatever the page size', async () => {
    const start = new Date(Date.now() - 24 * 3600_000);
    const end = new Date(Date.now() + 3600_000);
    const whole = await foundByTime(db, start, end, undefined, 1000);
    expect(whole.length).toBeGreaterThan(3);
    expect(await foundByTime(db, start, end, undefined, 2)).toEqual(whole);
    expect(await foundByTime(db, start, end, undefined, 1)).toEqual(whole);
    const inOrder = await db.query(
      `select event_id from es.events where recorded_at >= $1 and recorded_at < $2 order by transaction_id, global_position`,
      [start, end],
    );
    expect(whole.map((event) => event.id)).toEqual(inOrder.rows.map((row) => row.event_id));
  });

  it('reads a period through the index on the recorded time', async () => {
    // A test's table is too small for the planner to care: without a sequential scan to choose, it
    // shows the index serves the period's range.
    const sql = await db.connect();
    try {
      await sql.query('begin');
      await sql.query('set local enable_seqscan = off');
      const plan = await sql.query(
        `explain select event_id from es.events where recorded_at >= now() - interval '1 day' and recorded_at < now()
          order by recorded_at, global_position limit 1000`,
      );
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index Scan (using|on) events_recorded_at/);
    } finally {
      await sql.query('rollback');
      sql.release();
    }
  });
});
