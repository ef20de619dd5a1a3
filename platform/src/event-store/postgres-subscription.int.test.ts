import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { anEvent, eventMetadata, usePostgresStoreDatabase } from '../testing/postgres-store-bed';
import { type Position, START } from './port';
import type { PostgresEventStore, SubscriptionStep } from './postgres/postgres-event-store';

/** The PostgreSQL adapter's live subscription loop, step by step (the contract suite covers the rest). */
describe('PostgreSQL $all subscription', () => {
  const bed = usePostgresStoreDatabase();
  const { closers, open, follow } = bed;
  const stream = () => `sub-${randomUUID()}`;
  const head = async (store: PostgresEventStore): Promise<Position> =>
    (await store.readAll({ limit: 1_000_000 })).at(-1)?.position ?? START;

  const count = (steps: SubscriptionStep[], kind: SubscriptionStep['kind']) =>
    steps.filter((s) => s.kind === kind).length;

  it('a transaction holding an append open: nothing after it is delivered until it commits, then every event once, in order', async () => {
    const { store, steps, logged } = bed.observed();
    const from = await head(store);

    // The held transaction appends first (its transaction id is the smaller), then stays open.
    const held = new pg.Client({ connectionString: bed.url() });
    await held.connect();
    closers.push(() => held.end());
    const { pid } = (await held.query('select pg_backend_pid() as pid')).rows[0];
    await held.query('begin');
    const heldStream = stream();
    await held.query('select * from es.append_to_stream($1, -1, $2, $3, $4, $5)', [
      heldStream,
      [randomUUID()],
      ['Held'],
      [JSON.stringify({})],
      [JSON.stringify(eventMetadata())],
    ]);
    const later = [stream(), stream(), stream()];
    for (const [i, id] of later.entries()) {
      await store.appendToStream(id, [anEvent(`Later${i + 1}`)], { expectedRevision: 'no_stream' });
    }

    const { delivered } = follow(store, from);
    // Committed later appends exist; the subscriber has looked several times and backed off
    // to the poll interval, and the log names the backend that holds them back. (On a busy
    // machine the log may come before the seventh wait: the waits asserted are awaited too.)
    await vi.waitFor(
      () => {
        expect(count(steps, 'read')).toBeGreaterThanOrEqual(5);
        expect(count(steps, 'wait')).toBeGreaterThanOrEqual(7);
        expect(logged.some((line) => line.includes(`pid ${pid} `))).toBe(true);
      },
      { timeout: 60_000, interval: 20 },
    );
    expect(delivered).toEqual([]);
    const waits = steps.flatMap((s) => (s.kind === 'wait' ? [s] : []));
    expect(waits.every((w) => w.withheld)).toBe(true);
    // 5 ms, doubling, up to the poll interval: never a 5 ms spin for the whole transaction.
    expect(waits.slice(0, 7).map((w) => w.ms)).toEqual([5, 10, 20, 40, 80, 160, 200]);
    expect(logged.find((line) => line.includes(`pid ${pid} `))).toContain('es.append_to_stream');

    await held.query('commit');
    await vi.waitFor(() => expect(delivered).toHaveLength(4), { timeout: 60_000, interval: 20 });
    // A few more cycles: nothing is delivered twice.
    const readsSoFar = count(steps, 'read');
    await store.appendToStream(stream(), [anEvent('Marker')], { expectedRevision: 'no_stream' });
    await vi.waitFor(() => expect(delivered).toHaveLength(5), { timeout: 60_000, interval: 20 });
    expect(count(steps, 'read')).toBeGreaterThan(readsSoFar);
    expect(delivered.map((e) => e.type)).toEqual(['Held', 'Later1', 'Later2', 'Later3', 'Marker']);
    expect(new Set(delivered.map((e) => e.id)).size).toBe(5);
    expect(delivered[0]!.streamId).toBe(heldStream);
  });

  it('a NOTIFY that arrives while a batch is being handled causes another read, without waiting for the poll', async () => {
    const steps: SubscriptionStep[] = [];
    // A poll of a minute: only NOTIFY can deliver within the test.
    const store = open({ pollIntervalMs: 60_000, onSubscriptionStep: (s) => steps.push(s) });
    const writer = open();
    const id = stream();
    const from = await head(store);
    await writer.appendToStream(id, [anEvent('First')], { expectedRevision: 'no_stream' });
    const { delivered } = follow(store, from, async (events) => {
      if (events[0]?.type !== 'First') return;
      // While the subscriber is busy with this batch, a new event is committed and its
      // notification reaches the subscriber's listener.
      const notified = count(steps, 'notified');
      await writer.appendToStream(id, [anEvent('Second')], { expectedRevision: 0 });
      await vi.waitFor(() => expect(count(steps, 'notified')).toBeGreaterThan(notified), {
        timeout: 60_000,
        interval: 5,
      });
    });
    await vi.waitFor(() => expect(delivered.map((e) => e.type)).toEqual(['First', 'Second']), {
      timeout: 60_000,
      interval: 20,
    });
  });

  it('backpressure: the next batch is read only after the handler has finished with the last', async () => {
    const steps: SubscriptionStep[] = [];
    const store = open({ batchSize: 2, onSubscriptionStep: (s) => steps.push(s) });
    const from = await head(store);
    const id = stream();
    await store.appendToStream(
      id,
      Array.from({ length: 9 }, (_, i) => anEvent(`E${i}`)),
      { expectedRevision: 'no_stream' },
    );
    const readsDuringHandling: number[] = [];
    const { delivered } = follow(store, from, async () => {
      const before = count(steps, 'read');
      // Real work that yields to the event loop several times.
      for (let i = 0; i < 3; i++) await store.readStream(id);
      readsDuringHandling.push(count(steps, 'read') - before);
    });
    // Five batches of at most two, each handled to the end.
    await vi.waitFor(() => expect(readsDuringHandling).toHaveLength(5), { timeout: 60_000, interval: 20 });
    expect(delivered.map((e) => e.type)).toEqual(Array.from({ length: 9 }, (_, i) => `E${i}`));
    expect(readsDuringHandling).toEqual([0, 0, 0, 0, 0]);
  });

  it('rejects with the error of its handler', async () => {
    const store = open({ batchSize: 2 });
    await store.appendToStream(stream(), [anEvent('Boom')], { expectedRevision: 'no_stream' });
    await expect(
      store.followAll(START, async () => {
        throw new Error('handler failed');
      }),
    ).rejects.toThrow('handler failed');
  });
});
