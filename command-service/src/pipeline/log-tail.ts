import { setTimeout as delay } from 'node:timers/promises';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '@agency/platform';

/** Thrown by `LogTail.follow` when the events after the follower's position are no longer held. */
export class BehindTheTail extends Error {
  constructor() {
    super('The shared tail of the log no longer holds the events after this position');
  }
}

const BATCH = 500;

/**
 * The newest events of `$all`, read once for many followers: the reactors each follow the log
 * from their own checkpoint, and once caught up they would all read the same new events at every
 * append (two statements each per wake-up: the read and the "withheld?" check), fifteen times
 * over. The tail follows the log once, from its head when it starts, and keeps the last `window`
 * events; a follower whose position lies within them reads them from here, in the log's order, at
 * its own pace. One that falls further behind than the window (a reactor retrying an event, or
 * slower than the log) is told so (`BehindTheTail`) and reads the store itself again until it
 * has caught up.
 *
 * The events are held as the store hands them out, personal fields open. Once a subject is
 * erased (the store's `erasures` count grows), nothing opened before is handed out again: the
 * events held, and the batch being opened meanwhile, are let go, and a follower that had not read
 * them reads the store, which opens them afresh ("Erased"), as it did before there was a tail.
 */
export class LogTail {
  private events: RecordedEvent[] = [];
  /** The position just before the first event held (every event after it and up to the last is held). */
  private start: Position | undefined;
  private waiting = new Set<() => void>();
  /** Settles once the tail knows where it starts (or could not tell: then it serves no one yet). */
  readonly ready: Promise<void>;
  private markReady: () => void = () => {};

  /** The store's count of erasures when the events held were opened. */
  private opened = 0;

  constructor(
    private readonly store: Pick<EventStore, 'head' | 'followAll'> & { erasures?: () => number },
    private readonly window = 2000,
  ) {
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
  }

  /** Follows the log from its head until `signal` aborts; a failed read is tried again after `retryMs`. */
  async run(signal: AbortSignal, retryMs = 1000) {
    const followAll = this.store.followAll?.bind(this.store);
    try {
      if (!followAll) return;
      while (!signal.aborted && !this.start) {
        this.opened = this.store.erasures?.() ?? 0;
        this.start = await this.store.head().catch(() => undefined);
        this.markReady();
        if (!this.start) await pause(retryMs, signal);
      }
    } finally {
      this.markReady();
    }
    while (!signal.aborted) {
      try {
        await followAll?.(this.last(), async (batch) => this.hold(batch), { signal });
      } catch {
        await pause(retryMs, signal);
      }
    }
    this.wake();
  }

  /** Whether a follower at `position` can be served from here. */
  covers(position: Position) {
    return this.start !== undefined && comparePositions(position, this.start) >= 0;
  }

  /**
   * As `EventStore.followAll`: hands `handle` the events after `from` in batches, in order, each
   * once the previous one is handled, until `signal` aborts. Rejects with `BehindTheTail` when the
   * events after the position reached are no longer held, and with the error of `handle`.
   */
  async follow(from: Position, handle: (events: RecordedEvent[]) => Promise<void>, signal: AbortSignal) {
    let position = from;
    while (!signal.aborted) {
      this.letGoIfErased();
      if (!this.covers(position)) throw new BehindTheTail();
      const next = this.firstAfter(position);
      if (next < this.events.length) {
        const batch = this.events.slice(next, next + BATCH);
        await handle(batch);
        position = (batch.at(-1) as RecordedEvent).position;
        continue;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiting.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiting.add(done);
        signal.addEventListener('abort', done);
      });
    }
  }

  private last(): Position {
    return this.events.at(-1)?.position ?? (this.start as Position);
  }

  /** The index of the first event held after `position` (the events are in the log's order). */
  private firstAfter(position: Position) {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (comparePositions((this.events[middle] as RecordedEvent).position, position) > 0) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /**
   * After an erasure, lets go of every event held: the tail starts after the last of them, so a
   * follower that had yet to read one reads the store instead. Answers whether it did.
   */
  private letGoIfErased(): boolean {
    const erasures = this.store.erasures?.() ?? 0;
    if (erasures === this.opened) return false;
    this.opened = erasures;
    const last = this.events.at(-1);
    if (last) this.start = last.position;
    this.events = [];
    return true;
  }

  private hold(batch: RecordedEvent[]) {
    const last = batch.at(-1);
    if (!last) return;
    // The batch may have been opened before the erasure: it is let go too (its readers read the store).
    if (this.letGoIfErased()) {
      this.start = last.position;
      this.wake();
      return;
    }
    this.events.push(...batch);
    const over = this.events.length - this.window;
    if (over > 0) {
      this.start = (this.events[over - 1] as RecordedEvent).position;
      this.events = this.events.slice(over);
    }
    this.wake();
  }

  private wake() {
    for (const done of [...this.waiting]) done();
  }
}

/** Waits `ms`, or less when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => {});
