import { randomUUID } from 'node:crypto';
import { PostgresEventStore, type RecordedEvent } from '@agency/platform';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CommandDependencies } from '../pipeline/command-pipeline';
import { migrateCommandSide } from '../schema';
import type { Reactor } from './reactor';
import { ReactorRunner } from './reactor-runner';

const meta = { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };

/**
 * The reactors caught up with the log read each new event once between them (the shared tail of
 * the log), not once each: fifteen reactors reading every append themselves were most of the
 * statements a lesson save cost (docs/performance.md). Each still goes at its own pace: one
 * retrying an event holds back only itself.
 */
describe('reactors following the log together', () => {
  let pool: pg.Pool;
  let store: PostgresEventStore;
  let runner: ReactorRunner;
  let drop: () => Promise<void>;
  let follows = 0;
  const seen: Record<string, number[]> = { a: [], b: [], c: [] };
  /** `c` cannot react to the second event until this is false, as a reactor whose mail server is down. */
  let cHeld = true;
  /** `c` cannot react to the event of this number while it is set. */
  let cHeldAt: number | undefined;
  /** The read of `$all` whose batch first holds the event of this number fails. */
  let readFailsAt: number | undefined;
  /** `a` stays inside its reaction to the event of this number (a mail being sent) until `until` settles. */
  let aInside: { n: number; entered: () => void; until: Promise<void> } | undefined;

  /** One `Noted` event of number `n`, on a stream of its own. */
  const append = (n: number) =>
    store.appendToStream(`noted-${randomUUID()}`, [{ type: 'Noted', data: { n }, metadata: meta }], {
      expectedRevision: 'no_stream',
    });

  const noting = (name: string): Reactor => ({
    name,
    handles: ['Noted'],
    async react(event: RecordedEvent) {
      if (name === 'c' && ((event.data.n === 2 && cHeld) || event.data.n === cHeldAt)) throw new Error('not now');
      if (name === 'a' && aInside && event.data.n === aInside.n) {
        aInside.entered();
        await aInside.until;
      }
      seen[name]?.push(event.data.n as number);
    },
  });

  /** What `d` was given for a `Reread` event, at each attempt. */
  const dGiven: unknown[] = [];
  /** Set while the store reads a `Reread` event otherwise than it was first read (its subject erased since). */
  let storeReadsNow: Record<string, unknown> | undefined;
  /** `d` fails its first attempt at a `Reread` event, its subject erased meanwhile. */
  const rereading: Reactor = {
    name: 'd',
    handles: ['Reread'],
    async react(event: RecordedEvent) {
      dGiven.push(event.data.name);
      if (dGiven.length === 1) {
        storeReadsNow = { name: 'Erased' };
        throw new Error('mail server down');
      }
    },
  };

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url });
    store = await PostgresEventStore.connect(database.url, { pollIntervalMs: 50 });
    await migrateCommandSide(pool);
    const followAll = store.followAll.bind(store);
    store.followAll = (...args: Parameters<typeof followAll>) => {
      follows += 1;
      const [from, handle, options] = args;
      // A read that fails once its batch holds the event named (the connection lost mid-read).
      const failing = async (events: RecordedEvent[]) => {
        if (events.some((event) => event.data.n === readFailsAt)) {
          readFailsAt = undefined;
          throw new Error('connection lost');
        }
        return handle(events);
      };
      return followAll(from, failing, options);
    };
    const readStream = store.readStream.bind(store);
    store.readStream = async (...args: Parameters<typeof readStream>) =>
      (await readStream(...args)).map((event) =>
        event.type === 'Reread' && storeReadsNow ? { ...event, data: { ...event.data, ...storeReadsNow } } : event,
      );
    runner = new ReactorRunner(pool, store, {} as CommandDependencies, [...['a', 'b', 'c'].map(noting), rereading], {
      backoff: { firstMs: 100, maxMs: 100 },
    });
    await runner.register();
    runner.start();
  });
  afterAll(async () => {
    await runner.stop();
    await store.close();
    await pool.end();
    await drop();
  });

  it('a retry reacts to the event as the store reads it then, not to the copy it failed with', async () => {
    await store.appendToStream(
      `reread-${randomUUID()}`,
      [{ type: 'Reread', data: { n: 0, name: 'Fenella' }, metadata: meta }],
      { expectedRevision: 'no_stream' },
    );
    await vi.waitFor(() => expect(dGiven).toEqual(['Fenella', 'Erased']), { timeout: 60_000 });
  });

  it('reads each event once for all of them; one retrying an event holds back only itself', async () => {
    for (const n of [1, 2, 3, 4, 5]) {
      await store.appendToStream(`noted-${randomUUID()}`, [{ type: 'Noted', data: { n }, metadata: meta }], {
        expectedRevision: 'no_stream',
      });
    }
    // Each at its own pace: `c`, held at the second event, gets no further than the first.
    await vi.waitFor(() => expect([seen.a, seen.b, seen.c]).toEqual([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1]]), {
      timeout: 60_000,
    });
    cHeld = false;
    await vi.waitFor(() => expect(seen.c).toEqual([1, 2, 3, 4, 5]), { timeout: 60_000 });
    // The tail's one subscription: none of the three read the log itself.
    expect(follows).toBe(1);
  });

  it('one held while the log moves on further than the tail holds reads the store itself, then the tail again: each event once, in order', async () => {
    const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    cHeldAt = 100;
    await store.appendToStream(`noted-${randomUUID()}`, [{ type: 'Noted', data: { n: 100 }, metadata: meta }], {
      expectedRevision: 'no_stream',
    });
    await vi.waitFor(() => expect([seen.a?.at(-1), seen.b?.at(-1)]).toEqual([100, 100]), { timeout: 60_000 });
    // 2,500 events while `c` waits (more than the 2,000 the tail keeps), one in 50 for the reactors.
    const many = numbers(101, 2600).map((n) => ({
      type: n % 50 === 0 ? 'Noted' : 'Other',
      data: { n },
      metadata: meta,
    }));
    await store.appendToStream(`noted-${randomUUID()}`, many, { expectedRevision: 'no_stream' });
    const handled = [100, ...numbers(101, 2600).filter((n) => n % 50 === 0)];
    // `a` and `b` go each at its own pace: both are waited for.
    await vi.waitFor(() => expect([seen.a?.slice(5), seen.b?.slice(5)]).toEqual([handled, handled]), {
      timeout: 60_000,
    });
    expect(seen.c?.slice(5)).toEqual([]);
    const before = follows;
    cHeldAt = undefined;
    await vi.waitFor(() => expect(seen.c?.slice(5)).toEqual(handled), { timeout: 60_000 });
    // It read the store itself to catch up, then joined the tail: the next event is read for all once.
    expect(follows).toBe(before + 1);
    await store.appendToStream(`noted-${randomUUID()}`, [{ type: 'Noted', data: { n: 2601 }, metadata: meta }], {
      expectedRevision: 'no_stream',
    });
    await vi.waitFor(() => expect([seen.a, seen.b, seen.c].map((list) => list?.at(-1))).toEqual([2601, 2601, 2601]), {
      timeout: 60_000,
    });
    expect([seen.a, seen.b, seen.c].map((list) => list?.slice(5))).toEqual([
      [...handled, 2601],
      [...handled, 2601],
      [...handled, 2601],
    ]);
    expect(follows).toBe(before + 1);
  });

  it('stopped mid-stream (its instance lost the lead) and started again, each reactor sees what was recorded meanwhile once, in order', async () => {
    const names = ['a', 'b', 'c'] as const;
    const lengths = names.map((name) => seen[name]?.length ?? 0);
    await append(3001);
    await runner.stop();
    await append(3002);
    await append(3003);
    runner.start();
    await append(3004);
    await vi.waitFor(() => expect(names.map((name) => seen[name]?.at(-1))).toEqual([3004, 3004, 3004]), {
      timeout: 60_000,
    });
    expect(names.map((name, i) => seen[name]?.slice(lengths[i]))).toEqual(names.map(() => [3001, 3002, 3003, 3004]));
  });

  it('its lead lost and won back before the stop has ended: the new run begins once the old one has, and each event is reacted to once', async () => {
    const names = ['a', 'b', 'c'] as const;
    const lengths = names.map((name) => seen[name]?.length ?? 0);
    let release = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inside = new Promise<void>((entered) => {
      aInside = { n: 7001, entered, until };
    });
    await append(7001);
    await inside;
    // A run starts by asking the log's head (its shared read, LogTail.run): counted while `a` is inside.
    const head = store.head.bind(store);
    let headsWhileInside = 0;
    let released = false;
    store.head = () => {
      if (!released) headsWhileInside += 1;
      return head();
    };
    try {
      const stopping = runner.stop();
      runner.start();
      expect(headsWhileInside, 'the new run began while the old one was inside a reaction').toBe(0);
      released = true;
      release();
      await stopping;
      await append(7002);
      await vi.waitFor(() => expect(names.map((name) => seen[name]?.at(-1))).toEqual([7002, 7002, 7002]), {
        timeout: 60_000,
      });
      expect(names.map((name, i) => seen[name]?.slice(lengths[i]))).toEqual(names.map(() => [7001, 7002]));
    } finally {
      store.head = head;
      aInside = undefined;
    }
  });

  it('the shared read failing mid-stream is read again: each reactor sees each event once, in order', async () => {
    const names = ['a', 'b', 'c'] as const;
    const lengths = names.map((name) => seen[name]?.length ?? 0);
    readFailsAt = 5001;
    for (const n of [5001, 5002]) {
      await store.appendToStream(`noted-${randomUUID()}`, [{ type: 'Noted', data: { n }, metadata: meta }], {
        expectedRevision: 'no_stream',
      });
    }
    await vi.waitFor(() => expect(names.map((name) => seen[name]?.at(-1))).toEqual([5002, 5002, 5002]), {
      timeout: 60_000,
    });
    expect(readFailsAt).toBeUndefined();
    expect(names.map((name, i) => seen[name]?.slice(lengths[i]))).toEqual(names.map(() => [5001, 5002]));
  });
});
