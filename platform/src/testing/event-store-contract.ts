import { randomUUID } from 'node:crypto';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  comparePositions,
  type EventStore,
  type EventToAppend,
  type RecordedEvent,
  WrongExpectedRevision,
} from '../event-store/port';

/**
 * The behaviour every adapter of the port must show. An adapter's test file calls this with a
 * factory for a fresh, empty store.
 */
export function eventStoreContract(
  name: string,
  open: () => Promise<{ store: EventStore; dispose: () => Promise<void> }>,
) {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    let dispose: () => Promise<void>;
    beforeAll(async () => {
      ({ store, dispose } = await open());
    });
    afterAll(async () => {
      await store.close();
      await dispose();
    });

    const metadata = (extra: Partial<EventToAppend['metadata']> = {}) => ({
      userId: 'user-1',
      role: 'admin',
      commandId: randomUUID(),
      correlationId: randomUUID(),
      causationId: randomUUID(),
      ...extra,
    });
    const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({
      type,
      data,
      metadata: metadata(),
    });
    const stream = () => `test-${randomUUID()}`;

    it('appends to a new stream with no_stream and reads it back in revision order', async () => {
      const id = stream();
      const result = await store.appendToStream(id, [event('A', { n: 1 }), event('B', { n: 2 })], {
        expectedRevision: 'no_stream',
      });
      expect(result.nextRevision).toBe(1);
      const events = await store.readStream(id);
      expect(events.map((e) => [e.type, e.revision, e.data])).toEqual([
        ['A', 0, { n: 1 }],
        ['B', 1, { n: 2 }],
      ]);
    });

    it('refuses no_stream on an existing stream with a typed conflict and writes nothing', async () => {
      const id = stream();
      await store.appendToStream(id, [event('A')], { expectedRevision: 'no_stream' });
      const attempt = store.appendToStream(id, [event('B')], { expectedRevision: 'no_stream' });
      await expect(attempt).rejects.toBeInstanceOf(WrongExpectedRevision);
      await expect(attempt).rejects.toMatchObject({ actual: 0 });
      expect((await store.readStream(id)).map((e) => e.type)).toEqual(['A']);
    });

    it('appends at the expected revision and refuses a stale one without writing', async () => {
      const id = stream();
      await store.appendToStream(id, [event('A')], { expectedRevision: 'no_stream' });
      await store.appendToStream(id, [event('B')], { expectedRevision: 0 });
      await expect(store.appendToStream(id, [event('C'), event('D')], { expectedRevision: 0 })).rejects.toMatchObject({
        streamId: id,
        expected: 0,
        actual: 1,
      });
      await expect(store.appendToStream(stream(), [event('X')], { expectedRevision: 3 })).rejects.toMatchObject({
        actual: 'no_stream',
      });
      expect((await store.readStream(id)).map((e) => e.type)).toEqual(['A', 'B']);
    });

    it('reads a stream from a revision: only the events at or after it, none past the end', async () => {
      const id = stream();
      await store.appendToStream(id, [event('A'), event('B'), event('C')], { expectedRevision: 'no_stream' });
      expect((await store.readStream(id, { fromRevision: 1 })).map((e) => [e.type, e.revision])).toEqual([
        ['B', 1],
        ['C', 2],
      ]);
      expect(await store.readStream(id, { fromRevision: 3 })).toEqual([]);
      expect(await store.readStream(stream(), { fromRevision: 1 })).toEqual([]);
    });

    it('appends with any whatever the revision', async () => {
      const id = stream();
      await store.appendToStream(id, [event('A')], { expectedRevision: 'any' });
      const result = await store.appendToStream(id, [event('B')], { expectedRevision: 'any' });
      expect(result.nextRevision).toBe(1);
    });

    it('records the metadata auditors read, with the time it was recorded', async () => {
      const id = stream();
      const meta = metadata({ userId: 'u-42', role: 'tutor' });
      const before = Date.now();
      await store.appendToStream(id, [{ type: 'A', data: {}, metadata: meta }], { expectedRevision: 'no_stream' });
      const [recorded] = await store.readStream(id);
      expect(recorded?.metadata).toMatchObject(meta);
      const at = Date.parse(recorded?.metadata.recordedAt ?? '');
      expect(at).toBeGreaterThanOrEqual(before - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('reads $all in global order from a position', async () => {
      const a = stream();
      const b = stream();
      const first = await store.appendToStream(a, [event('A1')], { expectedRevision: 'no_stream' });
      await store.appendToStream(b, [event('B1'), event('B2')], { expectedRevision: 'no_stream' });
      await store.appendToStream(a, [event('A2')], { expectedRevision: 0 });
      const after = await store.readAll({ from: first.position, limit: 1000 });
      const ours = after.filter((e) => e.streamId === a || e.streamId === b);
      expect(ours.map((e) => e.type)).toEqual(['B1', 'B2', 'A2']);
      for (let i = 1; i < after.length; i++) {
        expect(comparePositions(after[i - 1]!.position, after[i]!.position)).toBe(-1);
      }
    });

    it('a subscription catches up, then delivers new events live', async () => {
      const id = stream();
      const start = await store.appendToStream(id, [event('Before')], { expectedRevision: 'no_stream' });
      const received = firstValueFrom(store.subscribeToAll(start.position).pipe(take(2), toArray()));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await store.appendToStream(id, [event('Live1'), event('Live2')], { expectedRevision: 0 });
      const events = await received;
      expect(events.map((e) => e.type)).toEqual(['Live1', 'Live2']);
    });

    it('followAll catches up and goes live one batch at a time: a slow handler is never called again before it finishes', async () => {
      const id = stream();
      const [head] = (await store.readAll({ limit: 1_000_000 })).slice(-1);
      // More than one batch of backlog, whatever the adapter's batch size.
      for (let i = 0; i < 11; i++) {
        const batch = Array.from({ length: 100 }, (_, j) => event('Backlog', { n: i * 100 + j }));
        await store.appendToStream(id, batch, { expectedRevision: i === 0 ? 'no_stream' : i * 100 - 1 });
      }
      const seen: number[] = [];
      let handling = 0;
      let overlapped = false;
      let batches = 0;
      let check = () => {};
      const reached = (n: number) =>
        new Promise<void>((resolve) => {
          check = () => seen.length >= n && resolve();
          check();
        });
      const stop = new AbortController();
      const following = store.followAll!(
        head?.position ?? { commit: 0n, prepare: 0n },
        async (events) => {
          handling++;
          if (handling > 1) overlapped = true;
          batches++;
          for (const e of events) if (e.streamId === id) seen.push(e.data.n as number);
          await new Promise((resolve) => setTimeout(resolve, 5));
          handling--;
          check();
        },
        { signal: stop.signal },
      );
      await reached(1100);
      await store.appendToStream(id, [event('Live', { n: 1100 }), event('Live', { n: 1101 })], {
        expectedRevision: 1099,
      });
      await reached(1102);
      stop.abort();
      await following;
      expect(overlapped).toBe(false);
      expect(batches).toBeGreaterThan(2);
      expect(seen).toEqual(Array.from({ length: 1102 }, (_, n) => n));
    });

    it('8 concurrent appenders: a live subscriber sees every event once, each stream in order', async () => {
      const total = 5000;
      const writers = 8;
      const runId = randomUUID();
      const [head] = (await store.readAll({ limit: 1_000_000 })).slice(-1);
      const seen: RecordedEvent[] = [];
      const seenIds = new Set<string>();
      // Once the appenders are done, the last of their events in $all: the subscriber delivers in
      // $all order, so when it has delivered that one, an event it has not delivered was skipped.
      let last: string | undefined;
      let reachedLast: () => void = () => {};
      const lastDelivered = new Promise<void>((resolve) => {
        reachedLast = resolve;
      });
      let failed: (error: unknown) => void = () => {};
      const subscriptionFailed = new Promise<never>((_, reject) => {
        failed = reject;
      });
      // Handled by the race below; an error before the appenders are done is not unhandled meanwhile.
      subscriptionFailed.catch(() => {});
      const subscription = store.subscribeToAll(head?.position).subscribe({
        next: (e) => {
          if (!e.streamId.startsWith(`stress-${runId}`)) return;
          seen.push(e);
          seenIds.add(e.id);
          if (last !== undefined && seenIds.has(last)) reachedLast();
        },
        error: (error) => failed(error),
      });
      // Writers share 40 streams, so they collide and retry, as the command pipeline does.
      const streams = Array.from({ length: 40 }, (_, i) => `stress-${runId}-${i}`);
      let next = 0;
      const writer = async () => {
        while (next < total) {
          const n = next++;
          const id = streams[n % streams.length]!;
          for (;;) {
            const current = await store.readStream(id);
            const expected = current.length === 0 ? 'no_stream' : current.length - 1;
            try {
              await store.appendToStream(id, [event('Stressed', { n })], { expectedRevision: expected });
              break;
            } catch (error) {
              if (!(error instanceof WrongExpectedRevision)) throw error;
            }
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: writers }, writer));
        // Every append has committed, so a fresh read holds them all.
        const appended = (await store.readAll({ from: head?.position, limit: 1_000_000 })).filter((e) =>
          e.streamId.startsWith(`stress-${runId}`),
        );
        expect(appended).toHaveLength(total);
        last = appended.at(-1)!.id;
        if (seenIds.has(last)) reachedLast();
        await Promise.race([lastDelivered, subscriptionFailed]);
        const skipped = appended.filter((e) => !seenIds.has(e.id));
        // Nothing skipped (named, if one was) ...
        expect(skipped.map((e) => `${e.streamId}@${e.revision} at ${e.position.commit}/${e.position.prepare}`)).toEqual(
          [],
        );
        // ... and each once, in the order of a fresh read: nothing repeated or reordered.
        expect(seen.map((e) => `${e.streamId}@${e.revision}`)).toEqual(
          appended.map((e) => `${e.streamId}@${e.revision}`),
        );
      } finally {
        subscription.unsubscribe();
      }
      const lastRevision = new Map<string, number>();
      for (const e of seen) {
        expect(e.revision).toBe((lastRevision.get(e.streamId) ?? -1) + 1);
        lastRevision.set(e.streamId, e.revision);
      }
      // A bound for a hang, not a measure: 5 s alone on two cores.
    }, 240_000);
  });
}
