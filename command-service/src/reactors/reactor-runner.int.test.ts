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

  const noting = (name: string): Reactor => ({
    name,
    handles: ['Noted'],
    async react(event: RecordedEvent) {
      if (name === 'c' && event.data.n === 2 && cHeld) throw new Error('not now');
      seen[name]?.push(event.data.n as number);
    },
  });

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url });
    store = await PostgresEventStore.connect(database.url, { pollIntervalMs: 50 });
    await migrateCommandSide(pool);
    const followAll = store.followAll.bind(store);
    store.followAll = (...args: Parameters<typeof followAll>) => {
      follows += 1;
      return followAll(...args);
    };
    runner = new ReactorRunner(pool, store, {} as CommandDependencies, ['a', 'b', 'c'].map(noting), {
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

  it('reads each event once for all of them; one retrying an event holds back only itself', async () => {
    for (const n of [1, 2, 3, 4, 5]) {
      await store.appendToStream(`noted-${randomUUID()}`, [{ type: 'Noted', data: { n }, metadata: meta }], {
        expectedRevision: 'no_stream',
      });
    }
    await vi.waitFor(
      () =>
        expect([seen.a, seen.b]).toEqual([
          [1, 2, 3, 4, 5],
          [1, 2, 3, 4, 5],
        ]),
      { timeout: 60_000 },
    );
    expect(seen.c).toEqual([1]);
    cHeld = false;
    await vi.waitFor(() => expect(seen.c).toEqual([1, 2, 3, 4, 5]), { timeout: 60_000 });
    // The tail's one subscription: none of the three read the log itself.
    expect(follows).toBe(1);
  });
});
