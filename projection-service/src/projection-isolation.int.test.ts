import { randomUUID } from 'node:crypto';
import { type EventStore, PostgresEventStore, type RecordedEvent } from '@agency/platform';
import { Sessions } from '@agency/platform/sessions';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_SCHEMA, ProjectionRunner, readStatuses } from './projection-runner';
import type { Projection } from './read-models/projection';
import { ensureReadModels, rebuildProjection } from './read-models/read-schema';
import { buildQueryApp } from './testing/query-app';

const meta = { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };
const SECRET = 'test-secret-test-secret-test-secret';

/** Records every event it sees, in its own table. */
const recorder = (name: string, refuse: (event: RecordedEvent) => boolean): Projection => ({
  name,
  version: 1,
  handlers: {
    Noted: async (sql, event) => {
      if (refuse(event)) throw new Error(`${name} cannot apply ${event.data.label}`);
      await sql.query(`create table if not exists ${name} (event_id text primary key, label text not null)`);
      await sql.query(`insert into ${name} values ($1, $2)`, [event.id, event.data.label]);
    },
  },
});

let poisonRefused = true;
const steady = recorder('steady', () => false);
const fragile = recorder('fragile', (event) => poisonRefused && event.data.label === 'poison');

describe('a projection fails alone', () => {
  let pool: pg.Pool;
  let store: EventStore;
  let drop: () => Promise<void>;
  let runner: ProjectionRunner;
  let query: FastifyInstance;
  let adminToken: string;
  let tutorToken: string;
  const log: string[] = [];

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    store = await PostgresEventStore.connect(database.url);
    pool = new pg.Pool({ connectionString: database.url });
    await ensureReadModels(pool, store, [steady, fragile]);
    runner = new ProjectionRunner(pool, store, [steady, fragile], (message) => log.push(message), {
      backoff: { firstMs: 50, maxMs: 400 },
      idleCheckMs: 200,
    });
    runner.start();
    query = await buildQueryApp({ databaseUrl: database.url, jwtSecret: SECRET, store });
    // Tokens need a live session, as the command service would have started at login.
    const sessions = new Sessions(pool);
    await sessions.ensureSchema();
    adminToken = query.jwt.sign({
      id: 'u-admin',
      username: 'admin',
      role: 'admin',
      sid: await sessions.start('u-admin'),
    });
    tutorToken = query.jwt.sign({
      id: 'u-tutor',
      username: 'tutor',
      role: 'tutor',
      tutorId: 't-1',
      sid: await sessions.start('u-tutor'),
    });
  });
  afterAll(async () => {
    runner.stop();
    await query.close();
    await store.close();
    await pool.end();
    await drop();
  });

  const note = async (...labels: string[]) => {
    const positions = [];
    for (const label of labels) {
      const { position } = await store.appendToStream(
        `note-${randomUUID()}`,
        [{ type: 'Noted', data: { label }, metadata: meta }],
        { expectedRevision: 'no_stream' },
      );
      positions.push(position);
    }
    return positions;
  };
  const labels = async (table: string) =>
    (
      await pool
        .query(`select label from ${LIVE_SCHEMA}.${table} order by label`)
        .catch(() => ({ rows: [] as { label: string }[] }))
    ).rows.map((row) => row.label);
  const status = async (name: string) => (await readStatuses(pool, LIVE_SCHEMA)).get(name);
  const health = async (token?: string) => {
    const response = await query.inject({
      method: 'GET',
      url: '/api/health',
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  };

  it('stops at the event it cannot apply, records it, lets the others move on, and resumes once fixed', async () => {
    const [, , beforePoison, poison] = await note('a1', 'a2', 'a3', 'poison');
    await note('b1', 'b2');
    await expect
      .poll(async () => (await labels('steady')).length === 6, { message: 'steady to apply all six', timeout: 60_000 })
      .toBe(true);
    await expect
      .poll(async () => Boolean((await status('fragile'))?.failure), {
        message: 'fragile to record its failure',
        timeout: 60_000,
      })
      .toBe(true);

    // Stopped exactly at the poison: everything before it applied, nothing after it, nothing skipped.
    expect(await labels('fragile')).toEqual(['a1', 'a2', 'a3']);
    const stalled = await status('fragile');
    expect(stalled?.position).toEqual(beforePoison);
    expect(stalled?.following).toBe(false);
    expect(stalled?.failure).toMatchObject({
      position: `${poison?.commit}/${poison?.prepare}`,
      type: 'Noted',
      error: 'fragile cannot apply poison',
    });
    expect(stalled?.failure?.streamId).toMatch(/^note-/);
    expect(Date.parse(stalled?.failure?.at ?? '')).not.toBeNaN();
    expect(log.some((line) => line.includes('projection fragile stopped at event'))).toBe(true);

    // It is retried with backoff (the attempts count up) while the others keep going.
    await expect
      .poll(async () => ((await status('fragile'))?.attempts ?? 0) >= 2, {
        message: 'a second attempt',
        timeout: 60_000,
      })
      .toBe(true);
    await note('c1');
    await expect
      .poll(async () => (await labels('steady')).length === 7, {
        message: 'steady to apply the seventh',
        timeout: 60_000,
      })
      .toBe(true);
    expect(await labels('fragile')).toEqual(['a1', 'a2', 'a3']);
    expect((await status('steady'))?.failure).toBeNull();

    // GET /api/health: anyone sees the status, an admin sees every projection's position, lag and failure.
    expect(await health()).toEqual({ status: 'degraded' });
    expect(await health(tutorToken)).toEqual({ status: 'degraded' });
    const report = await health(adminToken);
    expect(report.status).toBe('degraded');
    const byName = Object.fromEntries(report.projections.map((p: { name: string }) => [p.name, p]));
    expect(byName.steady).toMatchObject({ state: 'live', lag: 0, failure: null });
    expect(byName.fragile).toMatchObject({
      state: 'stalled',
      position: `${beforePoison?.commit}/${beforePoison?.prepare}`,
      lag: 4,
      failure: { type: 'Noted', error: 'fragile cannot apply poison' },
    });
    expect(byName.fragile.failure.attempts).toBeGreaterThanOrEqual(2);

    // The fix (as an upgrade would bring): the next retry applies the poison and everything after it.
    poisonRefused = false;
    await expect
      .poll(async () => (await status('fragile'))?.following === true, {
        message: 'fragile to follow again',
        timeout: 60_000,
      })
      .toBe(true);
    expect(await labels('fragile')).toEqual(await labels('steady'));
    expect((await status('fragile'))?.failure).toBeNull();
    expect(await health()).toEqual({ status: 'ok' });
    await note('d1');
    await expect
      .poll(async () => (await labels('fragile')).includes('d1'), {
        message: 'fragile to apply a live event',
        timeout: 60_000,
      })
      .toBe(true);
    expect(await labels('fragile')).toEqual(await labels('steady'));
  });

  it('npm run rebuild -- --projection: rebuilds one projection from 0 with fixed handlers and clears its failure', async () => {
    poisonRefused = true;
    await note('poison');
    await note('e1');
    await expect
      .poll(async () => (await labels('steady')).length === 10, { message: 'steady to apply ten', timeout: 60_000 })
      .toBe(true);
    await expect
      .poll(async () => Boolean((await status('fragile'))?.failure), {
        message: 'fragile to stop again',
        timeout: 60_000,
      })
      .toBe(true);
    expect(await labels('fragile')).toHaveLength(8);
    const steadyBefore = await pool.query(`select * from ${LIVE_SCHEMA}.steady order by event_id`);

    // The upgraded code's projection: same name, its handler no longer refuses.
    const fixed = recorder('fragile', () => false);
    const { failures } = await rebuildProjection(pool, store, [steady, fixed], 'fragile');
    expect(failures).toEqual([]);
    const rebuilt = await status('fragile');
    expect(rebuilt).toMatchObject({ failure: null, following: true, attempts: 0 });
    expect(await labels('fragile')).toEqual(await labels('steady'));
    // The other projection's tables were not touched.
    expect((await pool.query(`select * from ${LIVE_SCHEMA}.steady order by event_id`)).rows).toEqual(steadyBefore.rows);
    const schemas = await pool.query("select nspname from pg_namespace where nspname like 'read%'");
    expect(schemas.rows.map((row) => row.nspname)).toEqual(['read']);
    await expect(rebuildProjection(pool, store, [steady], 'nonesuch')).rejects.toThrow(/no projection named/);
  });
});
