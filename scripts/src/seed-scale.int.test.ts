import { randomBytes } from 'node:crypto';
import { migrateEventStore, PostgresEventStore } from '@agency/platform';
import { encryptPersonalFields, PersonalDataEventStore, PersonalDataVault } from '@agency/platform/personal-data';
import { projections, rebuildReadModels } from '@agency/projection-service';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedScale } from './seed-scale';
import { createTestDatabase } from './testing/test-database';

/**
 * `npm run seed:scale` in small: a year of a small agency written through the deciders, then every
 * read model rebuilt from it. Every kind of record the issue lists is there (lessons, invoices
 * and payments, consultations with their family invoices, workshops with bookings and their
 * invoices), and every projection takes every event (a rebuild stops at the first it cannot apply).
 */
describe('the scale seed', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new pg.Pool({ connectionString: database.url, max: 4 });
    await migrateEventStore(db);
  });
  afterAll(async () => {
    await db.end();
    await database.drop();
  });

  it('writes every kind of record the agency keeps, and every read model builds from it', async () => {
    const vault = await PersonalDataVault.open(db, { masterKey: randomBytes(32) });
    const written = await seedScale(db, (type, data) => encryptPersonalFields(vault, type, data), {
      years: 1,
      tutors: 4,
      families: 60,
    });
    const stored = Number((await db.query('select count(*) from es.events')).rows[0].count);
    expect(stored).toBe(written);
    // Written by one COPY in one transaction: $all (transaction_id, global_position) is the order
    // the rows were decided in, each stream's revisions run 0, 1, 2… in that order, and the
    // indexes dropped for the load are back.
    const streams = await db.query(
      `select count(*) as count from (
         select stream_id, stream_revision,
                row_number() over (partition by stream_id order by transaction_id, global_position) - 1 as expected
           from es.events) x
        where stream_revision <> expected`,
    );
    expect(Number(streams.rows[0].count)).toBe(0);
    const indexes = (
      await db.query(`select indexname from pg_indexes where schemaname = 'es' and tablename = 'events' order by 1`)
    ).rows.map((row) => row.indexname);
    expect(indexes).toEqual([
      'events_event_id_key',
      'events_in_global_order',
      'events_pkey',
      'events_recorded_at',
      'events_stream_id_stream_revision_key',
    ]);
    const store = new PersonalDataEventStore(new PostgresEventStore(db, { pollIntervalMs: 50 }), vault);
    const rebuilt = await rebuildReadModels(db, store, projections);
    expect(rebuilt.failures).toEqual([]);
    expect(rebuilt.applied).toBe(written);

    const count = async (sql: string) => Number((await db.query(sql)).rows[0].count);
    expect(await count('select count(*) from read.lessons')).toBeGreaterThan(1000);
    expect(await count('select count(*) from read.invoices where paid_pence > 0')).toBeGreaterThan(0);
    expect(await count('select count(*) from read.consultations')).toBeGreaterThan(0);
    expect(await count("select count(*) from read.family_invoices where billed_kind = 'consultation'")).toBeGreaterThan(
      0,
    );
    expect(await count("select count(*) from read.family_invoices where billed_kind = 'workshops'")).toBeGreaterThan(0);
    expect(await count('select count(*) from read.family_payments')).toBeGreaterThan(0);
    expect(await count('select count(*) from read.workshop_registrations where client_id is not null')).toBeGreaterThan(
      0,
    );
    expect(await count('select count(*) from read.workshop_registrations where client_id is null')).toBeGreaterThan(0);
    // A few engagements have the other two money models, and their lessons are on no commission invoice.
    const models = (await db.query('select model, count(*) from read.money_model_engagement_choices group by model'))
      .rows;
    expect(models.map((row) => row.model).sort()).toEqual(['agency-sells-tuition', 'introduction']);
    expect(
      await count(`select count(*) from read.invoices i,
                    lateral (select count(*) as lessons, coalesce(sum(l.amount_pence), 0) as earnings
                               from read.lessons l
                              where l.tutor_id = i.tutor_id and l.month = i.month
                                and read.money_model_on(l.engagement_id, l.date) = 'tutor-pays-commission') billed
                    where not i.void and (i.lesson_count <> billed.lessons or i.earnings_pence <> billed.earnings)`),
    ).toBe(0);
    expect(
      await count(`select count(*) from read.lessons
                    where read.money_model_on(engagement_id, date) <> 'tutor-pays-commission'
                      and month in (select month from read.invoices)`),
    ).toBeGreaterThan(0);
    // Family invoice references are one sequence: none repeats.
    expect(await count('select count(*) - count(distinct reference) as count from read.family_invoices')).toBe(0);
    // Nothing personal in clear in the log.
    const someone = (await db.query('select email from read.contacts limit 1')).rows[0].email as string;
    expect(someone).toMatch(/@example\.com$/);
    expect(await count(`select count(*) from es.events where data::text like '%${someone}%'`)).toBe(0);
  });
});
