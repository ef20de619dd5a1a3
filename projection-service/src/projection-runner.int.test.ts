import { randomUUID } from 'node:crypto';
import { comparePositions, type EventStore, type Position } from '@agency/platform';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_CHANNEL, LIVE_SCHEMA, ProjectionRunner, WRITER_LOCK } from './projection-runner';
import type { Projection } from './read-models/projection';
import { ensureReadModels, rebuildReadModels } from './read-models/read-schema';
import { meta, openTestStore, tally, waitUntil } from './testing/tally';

/** The store as one runner follows it, noting the last position of each batch that runner has applied. */
function reaching(store: EventStore) {
  const watched: { store: EventStore; last?: Position } = { store };
  watched.store = new Proxy(store, {
    get(target, property) {
      if (property === 'followAll' && target.followAll) {
        const followAll = target.followAll.bind(target);
        return (...[from, handle, options]: Parameters<NonNullable<EventStore['followAll']>>) =>
          followAll(
            from,
            async (batch) => {
              await handle(batch);
              watched.last = batch.at(-1)?.position ?? watched.last;
            },
            options,
          );
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return watched;
}

describe('projection runner', () => {
  let pool: pg.Pool;
  let store: EventStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ pool, store, close } = await openTestStore());
    await ensureReadModels(pool, store, [tally]);
  });
  afterAll(() => close());

  const appendTallied = (n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        store.appendToStream(`tally-${randomUUID()}`, [{ type: 'Tallied', data: {}, metadata: meta }], {
          expectedRevision: 'no_stream',
        }),
      ),
    );
  const applied = async () => {
    const result = await pool
      .query(`select count(*)::int as events, coalesce(max(applied), 0) as most from ${LIVE_SCHEMA}.tally`)
      .catch(() => ({ rows: [{ events: 0, most: 0 }] }));
    return result.rows[0] as { events: number; most: number };
  };

  it('applies live events, and after a restart resumes from its checkpoint applying none twice', async () => {
    const first = new ProjectionRunner(pool, store, [tally]);
    first.start();
    await appendTallied(300);
    await waitUntil(async () => (await applied()).events === 300, '300 events', 200, 50);
    first.stop();

    await appendTallied(200);
    const head = await store.head();
    // A second runner over the same schema at once: the checkpoint keeps them from doubling up.
    // Each is stopped only once it has applied a batch reaching the head itself, so a runner
    // that would apply again what the other applied has had every chance to.
    const second = reaching(store);
    const third = reaching(store);
    const runners = [second, third].map((watched) => new ProjectionRunner(pool, watched.store, [tally]));
    for (const runner of runners) runner.start();
    await waitUntil(
      async () =>
        [second, third].every((watched) => watched.last !== undefined && comparePositions(watched.last, head) >= 0),
      'both runners at the head',
      400,
      25,
    );
    for (const runner of runners) runner.stop();
    expect(await applied()).toEqual({ events: 500, most: 1 });
  });

  it('a rebuild from position 0 swaps in a schema with exactly the same rows', async () => {
    const runner = new ProjectionRunner(pool, store, [tally]);
    runner.start();
    await appendTallied(50);
    await waitUntil(async () => (await applied()).events === 550, '550 events', 200, 50);
    const before = await pool.query(`select * from ${LIVE_SCHEMA}.tally order by event_id`);
    const progress: number[] = [];
    const { applied: rebuilt } = await rebuildReadModels(pool, store, [tally], (n) => progress.push(n));
    expect(rebuilt).toBe(550);
    expect(progress.at(-1)).toBe(550);
    const after = await pool.query(`select * from ${LIVE_SCHEMA}.tally order by event_id`);
    expect(after.rows).toEqual(before.rows);
    // The live runner carries on in the swapped-in schema.
    await appendTallied(5);
    await waitUntil(async () => (await applied()).events === 555, '555 events after the swap', 200, 50);
    runner.stop();
    expect((await applied()).most).toBe(1);
    const schemas = await pool.query("select nspname from pg_namespace where nspname like 'read%' order by 1");
    expect(schemas.rows.map((r) => r.nspname)).toEqual(['read']);
  });

  it("a live batch's checkpoint notification names where the checkpoints moved (commands waiting read no table)", async () => {
    const listener = await pool.connect();
    const payloads: string[] = [];
    listener.on('notification', (message) => payloads.push(message.payload ?? ''));
    await listener.query(`listen ${CHECKPOINT_CHANNEL}`);
    const runner = new ProjectionRunner(pool, store, [tally]);
    try {
      runner.start();
      const [appended] = await appendTallied(1);
      const at = appended?.position as Position;
      const named = () =>
        payloads.some((payload) => {
          const match = /^tally=(\d+)\/(\d+)$/.exec(payload);
          return (
            !!match && comparePositions({ commit: BigInt(match[1] ?? 0), prepare: BigInt(match[2] ?? 0) }, at) >= 0
          );
        });
      await waitUntil(async () => named(), 'a notification naming the moved checkpoint', 200, 50);
    } finally {
      runner.stop();
      await listener.query(`unlisten ${CHECKPOINT_CHANNEL}`);
      listener.release();
    }
  });

  it("a rebuild's load applies the projections' shares of a batch side by side, each in a transaction of its own", async () => {
    // Each of two projections, inside its share of the first batch, waits for the other's share to
    // have begun: applied one after the other, the first would wait in vain (bounded at 20 s).
    const begun = new Map<string, () => void>();
    const beginning = (name: string) => new Promise<void>((resolve) => begun.set(name, resolve));
    const waits = { a: beginning('a'), b: beginning('b') };
    const met: string[] = [];
    const meeting = (name: 'a' | 'b', other: 'a' | 'b'): Projection => ({
      name: `meeting-${name}`,
      version: 1,
      handlers: { Tallied: async () => {} },
      applyBatch: async (sql) => {
        begun.get(name)?.();
        let bound: NodeJS.Timeout | undefined;
        const gaveUp = new Promise<'gave up'>((resolve) => {
          bound = setTimeout(() => resolve('gave up'), 20_000);
        });
        const outcome = await Promise.race([waits[other], gaveUp]);
        clearTimeout(bound);
        const [{ backend }] = (await sql.query('select pg_backend_pid() as backend')).rows;
        if (outcome !== 'gave up' && !met.some((entry) => entry.endsWith(`@${backend}`)))
          met.push(`${name}@${backend}`);
      },
    });
    await appendTallied(3);
    const { failures } = await rebuildReadModels(pool, store, [meeting('a', 'b'), meeting('b', 'a')]);
    expect(failures).toEqual([]);
    // Both met the other, each on a connection of its own.
    expect(met.map((entry) => entry.split('@')[0]).sort()).toEqual(['a', 'b']);
  });

  it("a projection that fails partway through a rebuild's load is tried again after it, not replayed under the writer lock", async () => {
    // Its first attempt at its fifth event throws (a passing fault: a lost connection, a deadlock).
    // Each event it applies notes whether its transaction holds the writer lock, which only the
    // swap's final catch-up takes: that one should find nothing left to do.
    let faulted = false;
    let attempts = 0;
    const applied = new Set<string>();
    const underLock: string[] = [];
    const flaky: Projection = {
      name: 'flaky',
      version: 1,
      handlers: {
        Tallied: async (sql, event) => {
          attempts += 1;
          if (!faulted && attempts === 5) {
            faulted = true;
            throw new Error('a passing fault');
          }
          const { rows } = await sql.query(
            `select exists (select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
                              and objid = $1::oid and granted) as held`,
            [WRITER_LOCK],
          );
          (rows[0].held ? underLock : []).push(event.id);
          applied.add(event.id);
        },
      },
    };
    await appendTallied(20);
    const { failures } = await rebuildReadModels(pool, store, [flaky]);
    expect(faulted).toBe(true);
    expect(failures).toEqual([]);
    expect(underLock).toEqual([]);
    const { rows } = await pool.query("select count(*)::int as events from es.events where event_type = 'Tallied'");
    expect(applied.size).toBe(rows[0].events);
    const [status] = (
      await pool.query(`select failure from ${LIVE_SCHEMA}.projection_checkpoints where name = 'flaky'`)
    ).rows;
    expect(status).toEqual({ failure: null });
  });
});
