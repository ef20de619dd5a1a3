import { randomUUID } from 'node:crypto';
import type { EventStore } from '@agency/platform';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_SCHEMA, ProjectionRunner, WRITER_LOCK } from './projection-runner';
import { ensureReadModels, liveReadModelIsCurrent, rebuildReadModels } from './read-models/read-schema';
import { meta, openTestStore, tally, waitUntil } from './testing/tally';

describe('rebuild safety', () => {
  let pool: pg.Pool;
  let store: EventStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ pool, store, close } = await openTestStore());
  });
  afterAll(() => close());

  const append = async () => {
    const streamId = `tally-${randomUUID()}`;
    await store.appendToStream(streamId, [{ type: 'Tallied', data: {}, metadata: meta }], {
      expectedRevision: 'no_stream',
    });
    return (await store.readStream(streamId))[0]?.id as string;
  };
  const tallied = async (eventId: string) =>
    (
      await pool
        .query(`select applied from ${LIVE_SCHEMA}.tally where event_id = $1`, [eventId])
        .catch(() => ({ rows: [] }))
    ).rows[0]?.applied as number | undefined;

  it('two instances starting at once: one builds the read models, the other finds them current', async () => {
    for (let i = 0; i < 100; i++) await append();
    const builds: string[] = [];
    const watchBuilds = (who: string) => (applied: number) => {
      if (!builds.includes(who)) builds.push(who);
      return applied;
    };
    const results = await Promise.all([
      ensureReadModels(pool, store, [tally], watchBuilds('first')),
      ensureReadModels(pool, store, [tally], watchBuilds('second')),
    ]);
    expect(results.map((r) => r.rebuilt).sort()).toEqual([false, true]);
    expect(builds).toHaveLength(1);
    expect(await liveReadModelIsCurrent(pool, [tally])).toBe(true);
    const count = await pool.query(`select count(*)::int as n, max(applied) as most from ${LIVE_SCHEMA}.tally`);
    expect(count.rows[0]).toEqual({ n: 100, most: 1 });
    // A changed handler version changes the fingerprint: the next start rebuilds.
    expect(await liveReadModelIsCurrent(pool, [{ ...tally, version: 2 }])).toBe(false);
  });

  it('an event appended inside the swap window is found in the swapped-in schema', async () => {
    // No idle catch-up pass during the test: the event must reach the new schema by the live path.
    const runner = new ProjectionRunner(pool, store, [tally], undefined, { idleCheckMs: 600_000 });
    runner.start();
    try {
      const before = await append();
      await waitUntil(async () => (await tallied(before)) === 1, 'the live runner to apply an event', 400, 25);

      let inWindow: string | undefined;
      await rebuildReadModels(pool, store, [tally], undefined, {
        beforeSwap: async () => {
          // The rebuild has caught up and is about to rename the schemas: a command appends now.
          inWindow = await append();
          const id = inWindow;
          // Barrier: go on once the live runner either applied the event to the schema about to be
          // retired (the lost-event bug) or cannot: it waits for the writer lock, or the swap's
          // transaction still withholds the event from `$all`.
          await waitUntil(
            async () => {
              if ((await tallied(id)) !== undefined) return true;
              const waiting = await pool.query(
                `select 1 from pg_locks where locktype = 'advisory' and objid = $1 and not granted
                   and database = (select oid from pg_database where datname = current_database())`,
                [WRITER_LOCK],
              );
              if (waiting.rowCount) return true;
              const visible = await store.readAll({ from: { commit: 0n, prepare: 0n }, limit: 100_000 });
              return !visible.some((event) => event.id === id);
            },
            'the live runner to meet the swap',
            400,
            25,
          );
        },
      });

      await waitUntil(
        async () => (await tallied(inWindow as string)) !== undefined,
        'the event in the new schema',
        400,
        25,
      );
      expect(await tallied(inWindow as string)).toBe(1);
      const count = await pool.query(`select count(*)::int as n, max(applied) as most from ${LIVE_SCHEMA}.tally`);
      expect(count.rows[0]).toEqual({ n: 102, most: 1 });
    } finally {
      runner.stop();
    }
  });
});
