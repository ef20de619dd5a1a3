import type { Position, RecordedEvent } from '@agency/platform';
import { describe, expect, it, vi } from 'vitest';
import { BehindTheTail, LogTail } from './log-tail';

const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
const event = (n: number) => ({ id: `e${n}`, position: at(n), type: 'Noted', data: { n } }) as unknown as RecordedEvent;

/** A log the test appends to: `followAll` hands each batch appended after `from`, as the store's does. */
function fakeLog() {
  const events: RecordedEvent[] = [];
  let wake = () => {};
  let follows = 0;
  let erasures = 0;
  /** Runs after a batch is read (and opened) and before it is handed on. */
  let beforeHanding = () => {};
  return {
    follows: () => follows,
    /** A subject's key is shredded: what was opened before may hold its data. */
    erase: () => {
      erasures += 1;
    },
    betweenOpeningAndHanding(run: () => void) {
      beforeHanding = run;
    },
    append(...numbers: number[]) {
      events.push(...numbers.map(event));
      wake();
    },
    store: {
      erasures: () => erasures,
      head: async () => events.at(-1)?.position ?? at(0),
      async followAll(
        from: Position,
        handle: (batch: RecordedEvent[]) => Promise<void>,
        { signal }: { signal?: AbortSignal },
      ) {
        follows += 1;
        let seen = events.findIndex((e) => e.position.commit > from.commit);
        if (seen < 0) seen = events.length;
        while (!signal?.aborted) {
          if (seen < events.length) {
            const batch = events.slice(seen);
            seen = events.length;
            beforeHanding();
            await handle(batch);
          } else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
  };
}

describe('the shared tail of the log', () => {
  it('reads the log once for every follower, each getting the events after its own position in order', async () => {
    const log = fakeLog();
    log.append(1, 2);
    const tail = new LogTail(log.store, 10);
    const stop = new AbortController();
    const running = tail.run(stop.signal);
    await tail.ready;
    const seen: number[][] = [[], [], []];
    const followers = seen.map((into) =>
      tail.follow(at(2), async (batch) => void into.push(...batch.map((e) => e.data.n as number)), stop.signal),
    );
    log.append(3, 4);
    log.append(5);
    await vi.waitFor(() =>
      expect(seen).toEqual([
        [3, 4, 5],
        [3, 4, 5],
        [3, 4, 5],
      ]),
    );
    expect(log.follows()).toBe(1);
    stop.abort();
    log.append(6);
    await Promise.all([running, ...followers]);
  });

  it('tells a follower behind the events it holds, which then reads the store itself', async () => {
    const log = fakeLog();
    const tail = new LogTail(log.store, 3);
    const stop = new AbortController();
    const running = tail.run(stop.signal);
    await tail.ready;
    log.append(1, 2, 3, 4, 5);
    await vi.waitFor(() => expect(tail.covers(at(2))).toBe(true));
    expect(tail.covers(at(1))).toBe(false);
    await expect(tail.follow(at(1), async () => {}, stop.signal)).rejects.toBeInstanceOf(BehindTheTail);
    // One that falls behind while it works is told at its next read.
    let slow: (() => void) | undefined;
    const following = tail.follow(at(2), () => new Promise<void>((resolve) => (slow = resolve)), stop.signal);
    await vi.waitFor(() => expect(slow).toBeDefined());
    log.append(6, 7, 8, 9);
    await vi.waitFor(() => expect(tail.covers(at(5))).toBe(false));
    slow?.();
    await expect(following).rejects.toBeInstanceOf(BehindTheTail);
    stop.abort();
    log.append(10);
    await running;
  });

  it('hands out nothing opened before an erasure: a follower that had yet to read it reads the store', async () => {
    const log = fakeLog();
    const tail = new LogTail(log.store, 10);
    const stop = new AbortController();
    const running = tail.run(stop.signal);
    await tail.ready;
    log.append(1, 2, 3);
    await vi.waitFor(() => expect(tail.covers(at(0))).toBe(true));
    const caughtUp: number[] = [];
    const following = tail.follow(
      at(0),
      async (batch) => void caughtUp.push(...batch.map((e) => e.data.n as number)),
      stop.signal,
    );
    const ended = following.then(
      () => 'ended',
      (error: unknown) => error,
    );
    await vi.waitFor(() => expect(caughtUp).toEqual([1, 2, 3]));
    log.erase();
    // Held before the erasure: a follower that had not read them is sent to the store.
    await expect(tail.follow(at(1), async () => {}, stop.signal)).rejects.toBeInstanceOf(BehindTheTail);
    // One that had read them all goes on with the events after.
    log.append(4);
    await vi.waitFor(() => expect(caughtUp).toEqual([1, 2, 3, 4]));
    // A batch opened before an erasure and handed on after it is let go too.
    log.betweenOpeningAndHanding(() => log.erase());
    log.append(5, 6);
    await vi.waitFor(() => expect(tail.covers(at(4))).toBe(false));
    await expect(tail.follow(at(4), async () => {}, stop.signal)).rejects.toBeInstanceOf(BehindTheTail);
    // The follower that was at 4 is sent to the store for 5 and 6, never given them from here.
    expect(await ended).toBeInstanceOf(BehindTheTail);
    expect(caughtUp).toEqual([1, 2, 3, 4]);
    expect(tail.covers(at(6))).toBe(true);
    log.betweenOpeningAndHanding(() => {});
    stop.abort();
    log.append(7);
    await running;
  });
});
