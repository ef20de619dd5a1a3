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
  return {
    follows: () => follows,
    append(...numbers: number[]) {
      events.push(...numbers.map(event));
      wake();
    },
    store: {
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
});
