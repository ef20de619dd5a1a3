import { todayIn } from '@agency/domain';
import { type EventStore, PostgresEventStore } from '@agency/platform';
import { openPersonalData, type PersonalData } from '@agency/scripts/personal-data';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityPeriod, activityPage, activityPages, EVENTS_BY_TIME } from './activity-queries';

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
  /** Every command of a period, the pages read one after another. */
  const activityIn = async (from: EventStore, period: ActivityPeriod, limit?: number) => {
    const commands = [];
    for await (const page of activityPages(db, from, 'Europe/London', period, limit)) commands.push(...page);
    return commands;
  };

  beforeAll(async () => {
    product = await startTestProduct();
    const admin = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
    for (const name of ['Ann', 'Bob', 'Cat']) await admin.post('/api/clients/contact', contact(name, 'Active'));
    // A command of two events: an engagement's new rates and subjects.
    const { tutor } = await admin.post('/api/tutors/contact', {
      contact: contact('Tom', 'Twice'),
      tutor: { username: 'tom.twice', invoicePrefix: 'TT', startDate: '2024-09-01' },
    });
    const { client } = await admin.post('/api/clients/contact', contact('Pam', 'Twice'));
    const { child } = await admin.post(`/api/clients/child/${client.id}`, {
      firstName: 'Kid',
      lastName: 'Twice',
      dob: '2014-01-01',
    });
    const terms = { tutorId: tutor.id, studentId: child.id, commissionPct: 20, partnerPct: 0 };
    const started = { ...terms, rate: 30, startDate: '2024-09-01', subjects: ['Maths'] };
    const { engagement } = await admin.post('/api/tutors/engagement', started);
    await admin.post('/api/tutors/engagement', {
      ...terms,
      id: engagement.id,
      rate: 35,
      startDate: '2024-10-01',
      subjects: ['Maths', 'English'],
    });
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
    const found = await activityIn(counted, { from: today, to: today });
    expect(readsOfAll).toBe(0);
    expect(found.filter((entry) => entry.what.join(' ').includes('Active')).length).toBe(3);
    // Recorded on another day: only that day's log has it.
    const moved = await db.query(
      `with chosen as (select event_id, recorded_at from es.events where event_type = 'ClientRegistered' limit 1)
       update es.events e set recorded_at = '2020-01-15T10:00:00Z' from chosen where e.event_id = chosen.event_id
       returning e.event_id, e.metadata->>'commandId' as command_id, chosen.recorded_at::text as was`,
    );
    const { event_id: eventId, command_id: commandId, was } = moved.rows[0];
    const then = await activityIn(counted, { from: '2020-01-15', to: '2020-01-15' });
    expect(then.map((entry) => entry.commandId)).toContain(commandId);
    const now = await activityIn(counted, { from: today, to: today });
    expect(now.map((entry) => entry.commandId)).not.toContain(commandId);
    expect(readsOfAll).toBe(0);
    await db.query('update es.events set recorded_at = $2::timestamptz where event_id = $1', [eventId, was]);
  });

  it('pages a store of another server (no index by time: a scan of $all) as the time index pages it', async () => {
    // The same store, but for its head, which names no row of es.events: a store held elsewhere.
    const elsewhere = { ...counted, head: async () => ({ commit: 1n << 60n, prepare: 1n << 60n }) } as EventStore;
    const period = { from: today, to: today };
    const byTime = await activityIn(counted, period);
    expect(readsOfAll).toBe(0);
    expect(byTime.length).toBeGreaterThan(3);
    for (const limit of [1, 2, 500]) expect(await activityIn(elsewhere, period, limit)).toEqual(byTime);
    expect(readsOfAll).toBeGreaterThan(0);
    // A cursor of one kind of store is no place in the other.
    const { nextCursor } = await activityPage(db, counted, 'Europe/London', period, { limit: 1 });
    await expect(
      activityPage(db, elsewhere, 'Europe/London', period, { limit: 1, cursor: nextCursor ?? '' }),
    ).rejects.toMatchObject({ statusCode: 400, fields: { cursor: expect.any(String) } });
  });

  it("keeps a command whole on one page when another's event was recorded between two of its own", async () => {
    const twice = await db.query<{ command_id: string; first: string; second: string }>(
      `select metadata->>'commandId' as command_id, (array_agg(recorded_at::text order by recorded_at))[1] as first,
              (array_agg(recorded_at::text order by recorded_at))[2] as second
         from es.events where stream_id like 'engagement-%' group by 1 having count(*) = 2`,
    );
    const { command_id: commandId, first, second } = twice.rows[0] ?? {};
    expect(commandId).toBeDefined();
    // Bob's registration, recorded before, moved to between the two: as a command given at that moment would be.
    const moved = await db.query(
      `with bob as (select e.event_id, e.recorded_at from es.events e
                     where e.event_type = 'ClientRegistered' order by e.global_position offset 1 limit 1)
       update es.events e set recorded_at = $1::timestamptz + ($2::timestamptz - $1::timestamptz) / 2
         from bob where e.event_id = bob.event_id
       returning e.event_id, e.metadata->>'commandId' as command_id, bob.recorded_at::text as was`,
      [first, second],
    );
    const { event_id: eventId, command_id: between, was } = moved.rows[0];
    try {
      const whole = await activityIn(counted, { from: today, to: today }, 500);
      const ids = whole.map((entry) => entry.commandId);
      expect(ids.indexOf(between)).toBe(ids.indexOf(commandId) + 1);
      expect(whole.find((entry) => entry.commandId === commandId)?.what).toHaveLength(2);
      for (const limit of [1, 2, 3])
        expect(await activityIn(counted, { from: today, to: today }, limit)).toEqual(whole);
    } finally {
      await db.query('update es.events set recorded_at = $2::timestamptz where event_id = $1', [eventId, was]);
    }
  });

  it('reads a period through the index on the recorded time', async () => {
    // A test's table is too small for the planner to care: without a sequential scan to choose, it
    // shows the index serves the period's range. The query is the one the activity log runs.
    const sql = await db.connect();
    try {
      await sql.query('begin');
      await sql.query('set local enable_seqscan = off');
      const start = new Date(Date.now() - 24 * 3600_000);
      const plan = await sql.query(`explain ${EVENTS_BY_TIME}`, [
        start,
        new Date(),
        String(start.getTime() * 1000),
        '0',
        null,
        500,
      ]);
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index Scan (using|on) events_recorded_at/);
      // The period and the cursor bound the scan of the index itself: no row before or after is read.
      expect(text).toMatch(/Index Cond: .*ROW\(recorded_at, global_position\) > .*recorded_at < /);
    } finally {
      await sql.query('rollback');
      sql.release();
    }
  });
});
