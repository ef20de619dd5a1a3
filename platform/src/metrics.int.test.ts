import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateEventStore, PostgresEventStore } from './event-store/event-store';
import { Metrics } from './metrics';

/** Prometheus's text format as `name{labels}` → value. */
const samples = (text: string) =>
  new Map(
    text
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]),
  );

/** When the oldest waiting events were recorded. */
const WAITING_SINCE = '2025-01-01T10:00:00Z';

/**
 * The lag figures read at scrape time from checkpoint tables shaped as the projections' and the
 * reactors' are: events of the types each handles after its checkpoint, and how long ago the oldest
 * of them was recorded (the product-level test in front-door.int.test.ts sees them at 0).
 */
describe('metrics: checkpoint lag read at each scrape', () => {
  let database: { url: string; drop: () => Promise<void> };
  let pool: pg.Pool;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 3 });
    await migrateEventStore(pool);
    store = new PostgresEventStore(pool);
    const checkpoints = `(name text primary key, handles text[] not null, commit_position bigint not null default 0,
      prepare_position bigint not null default 0, failure jsonb)`;
    await pool.query(
      `create schema lag; create table lag.projections ${checkpoints}; create table lag.reactors ${checkpoints}`,
    );
    const metadata = { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };
    const append = (type: string) =>
      store.appendToStream(`s-${type}`, [{ type, data: {}, metadata }], { expectedRevision: 'any' });
    const seen = await append('Seen');
    for (const type of ['Waiting', 'Other', 'Waiting', 'Mailed']) await append(type);
    await pool.query(`update es.events set recorded_at = $1 where event_type = 'Waiting'`, [WAITING_SINCE]);
    const at = [seen.position.commit.toString(), seen.position.prepare.toString()];
    await pool.query(
      `insert into lag.projections values ('behind', '{Waiting}', $1, $2, null), ('idle', '{Never}', 0, 0, null),
         ('stuck', '{Waiting}', $1, $2, '{"eventId": "e"}')`,
      at,
    );
    await pool.query(`insert into lag.reactors values ('mail', '{Mailed}', $1, $2, null)`, at);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  for (const [where, throughStore] of [
    ['counted in es.events', false],
    ['read through the store (as from EventStoreDB)', true],
  ] as const) {
    it(`counts only the handled events after each checkpoint, and the age of the oldest: ${where}`, async () => {
      const metrics = new Metrics('a-token-of-sixteen-characters');
      metrics.followCheckpoints(pool, {
        projections: 'lag.projections',
        reactors: 'lag.reactors',
        mailReactor: 'mail',
        eventsElsewhere: throughStore ? store : undefined,
      });
      const age = () => (Date.now() - Date.parse(WAITING_SINCE)) / 1000;
      const atLeast = age();
      const figures = samples(await metrics.scrape());
      const atMost = age();
      expect(figures.get('projection_lag_events{projection="behind"}')).toBe(2);
      expect(figures.get('projection_lag_seconds{projection="behind"}')).toBeGreaterThanOrEqual(Math.floor(atLeast));
      expect(figures.get('projection_lag_seconds{projection="behind"}')).toBeLessThanOrEqual(Math.ceil(atMost));
      expect(figures.get('projection_lag_events{projection="idle"}')).toBe(0);
      expect(figures.get('projection_lag_seconds{projection="idle"}')).toBe(0);
      expect(figures.get('projection_stopped{projection="stuck"}')).toBe(1);
      expect(figures.get('projection_stopped{projection="behind"}')).toBe(0);
      expect(figures.get('reactor_lag_events{reactor="mail"}')).toBe(1);
      expect(figures.get('reactor_lag_seconds{reactor="mail"}')).toBeGreaterThanOrEqual(0);
      expect(figures.get('mail_outbox_backlog')).toBe(1);
      expect(figures.has('metrics_read_failures_total{family="projection"}')).toBe(false);
    });
  }
});
