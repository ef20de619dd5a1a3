import { setMaxListeners } from 'node:events';
import {
  comparePositions,
  type EventStore,
  formatPosition,
  type Position,
  type RecordedEvent,
  START,
} from '@agency/platform';
import type pg from 'pg';
import type { CommandDependencies } from '../pipeline/command-pipeline';
import { BehindTheTail, LogTail } from '../pipeline/log-tail';
import { type Reactor, reactionContext } from './reactor';

/** Notified whenever a reactor's checkpoint or failure changes (commands waiting on it listen). */
export const REACTOR_CHANNEL = 'reactor_checkpoint';

export type ReactorFailure = {
  position: string;
  streamId: string;
  eventId: string;
  type: string;
  error: string;
  at: string;
};

export type ReactorBackoff = { firstMs: number; maxMs: number };
const DEFAULT_BACKOFF: ReactorBackoff = { firstMs: 1000, maxMs: 60_000 };
/** How long a checkpoint may trail events a reactor does not handle. */
const PASSED_FLUSH_MS = 200;

const delayAfter = (attempts: number, backoff: ReactorBackoff) =>
  Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(20, Math.max(0, attempts - 1)));

/**
 * Thrown out of a batch after a failure on an event that could not be read (recorded, backed off):
 * the next try reads it from the store again, since the copy in hand can never succeed.
 */
class ReadAgain extends Error {}

/**
 * Runs the reactors on the instance that leads (the projection leader): each follows `$all` at its
 * own pace from its checkpoint (the new events read once for all from a shared tail, `LogTail`), so
 * one stopped at an event it cannot handle holds back only itself (docs/reactors.md).
 * A reactor new to a store that already has events starts at the head of the log: it reacts to
 * what happens from then on (what happened before was done by the code of its time).
 */
/** Work done every so often on the leader beside the reactors (e.g. lapsing unconfirmed bookings). */
export type Chore = { name: string; everyMs: number; run: () => Promise<unknown> };

export class ReactorRunner {
  private controller?: AbortController;
  private loops: Promise<void>[] = [];
  /** The log's newest events, read once for every reactor that has caught up with them. */
  private tail?: LogTail;
  private readonly backoff: ReactorBackoff;
  private readonly chores: Chore[] = [];

  constructor(
    private readonly db: pg.Pool,
    private readonly store: EventStore,
    private readonly deps: CommandDependencies,
    readonly reactors: readonly Reactor[],
    private readonly options: { log?: (message: string, error?: unknown) => void; backoff?: ReactorBackoff } = {},
  ) {
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  private log(message: string, error?: unknown) {
    this.options.log?.(message, error);
  }

  /** Makes every reactor's checkpoint row (at the head of the log for one new to a store). */
  async register() {
    for (const reactor of this.reactors) {
      const known = await this.db.query('select 1 from command.reactor_checkpoints where name = $1', [reactor.name]);
      if (known.rowCount) {
        await this.db.query('update command.reactor_checkpoints set handles = $2 where name = $1', [
          reactor.name,
          reactor.handles,
        ]);
        continue;
      }
      const head = await this.store.head();
      await this.db.query(
        `insert into command.reactor_checkpoints (name, handles, commit_position, prepare_position)
         values ($1, $2, $3, $4) on conflict (name) do nothing`,
        [reactor.name, reactor.handles, head.commit.toString(), head.prepare.toString()],
      );
    }
  }

  /** A chore to run while the reactors run (on the leader only), before `start`. */
  addChore(chore: Chore) {
    this.chores.push(chore);
  }

  start() {
    if (this.controller && !this.controller.signal.aborted) return;
    const controller = new AbortController();
    // Each reactor's loop, store subscription and waits listen for this one stop.
    setMaxListeners(8 * Math.max(1, this.reactors.length + this.chores.length), controller.signal);
    this.controller = controller;
    const tail = this.store.followAll ? new LogTail(this.store) : undefined;
    this.tail = tail;
    // The lead lost and won back before the stop has ended: the new run begins once the old one
    // has, or a reaction still under way (a mail being sent) would be read and run again beside it.
    const previous = Promise.allSettled(this.loops);
    const after = (run: () => Promise<void>) => previous.then(run);
    this.loops = [
      ...(tail ? [after(() => tail.run(controller.signal))] : []),
      ...this.reactors.map((reactor) => after(() => this.follow(reactor, controller.signal))),
      ...this.chores.map((chore) => after(() => this.repeat(chore, controller.signal))),
    ];
  }

  /** A chore's runs, `everyMs` apart; a failed run is logged and the next one tries again. */
  private async repeat(chore: Chore, signal: AbortSignal) {
    while (!signal.aborted) {
      try {
        await chore.run();
      } catch (error) {
        this.log(`The ${chore.name} chore failed; it runs again shortly`, error);
      }
      await abortableSleep(chore.everyMs, signal);
    }
  }

  async stop() {
    this.controller?.abort();
    const loops = this.loops;
    await Promise.allSettled(loops);
    // A start made meanwhile has loops of its own, which the next stop waits for.
    if (this.loops === loops) this.loops = [];
  }

  private async checkpointOf(name: string): Promise<Position> {
    const result = await this.db.query(
      'select commit_position, prepare_position from command.reactor_checkpoints where name = $1',
      [name],
    );
    const row = result.rows[0];
    return row ? { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) } : START;
  }

  private async advance(name: string, position: Position) {
    await this.db.query(
      `update command.reactor_checkpoints
          set commit_position = $2, prepare_position = $3, failure = null, failed_at = null, attempts = 0,
              retry_at = null, updated_at = now()
        where name = $1 and (commit_position, prepare_position) < ($2::bigint, $3::bigint)`,
      [name, position.commit.toString(), position.prepare.toString()],
    );
    await this.db.query(`select pg_notify('${REACTOR_CHANNEL}', $1)`, [name]);
  }

  private async fail(name: string, event: RecordedEvent, error: unknown): Promise<number> {
    const failure: ReactorFailure = {
      position: formatPosition(event.position),
      streamId: event.streamId,
      eventId: event.id,
      type: event.type,
      error: error instanceof Error ? error.message : String(error),
      at: new Date().toISOString(),
    };
    const result = await this.db.query<{ attempts: number }>(
      `update command.reactor_checkpoints
          set failure = $2, failed_at = coalesce(failed_at, now()), attempts = attempts + 1, updated_at = now()
        where name = $1 returning attempts`,
      [name, JSON.stringify(failure)],
    );
    const attempts = result.rows[0]?.attempts ?? 1;
    const delay = delayAfter(attempts, this.backoff);
    await this.db.query(
      `update command.reactor_checkpoints set retry_at = now() + $2 * interval '1 millisecond' where name = $1`,
      [name, delay],
    );
    await this.db.query(`select pg_notify('${REACTOR_CHANNEL}', $1)`, [name]);
    this.log(
      `reactor ${name} stopped at event ${failure.position} (${event.type} in ${event.streamId}): ${failure.error}; ` +
        `retrying in ${delay} ms`,
      error,
    );
    return delay;
  }

  /**
   * Reacts to one event until it succeeds (or the runner stops): a failure is retried, never
   * skipped. Each retry reacts to the event as the store reads it then, not to the copy in hand:
   * a subject erased during the backoff reads "Erased" (docs/reactors.md).
   */
  private async reactTo(reactor: Reactor, event: RecordedEvent, signal: AbortSignal) {
    let current = event;
    while (!signal.aborted) {
      try {
        if (current.readError) throw current.readError;
        const reacting = current;
        await reactor.react(reacting, (key) => reactionContext(this.deps, reactor.name, reacting, key));
        return true;
      } catch (error) {
        if (signal.aborted) return false;
        const delay = await this.fail(reactor.name, current, error).catch(() => this.backoff.firstMs);
        await abortableSleep(delay, signal);
        current = (await this.readNow(event).catch(() => undefined)) ?? current;
      }
    }
    return false;
  }

  /** The event as its stream reads now (undefined if it cannot be found there). */
  private async readNow(event: RecordedEvent) {
    return (await this.store.readStream(event.streamId)).find((recorded) => recorded.id === event.id);
  }

  private async follow(reactor: Reactor, signal: AbortSignal) {
    const handles = new Set(reactor.handles);
    const followAll = this.store.followAll?.bind(this.store);
    // Events it does not handle move its checkpoint lazily (at most every 200 ms, and at once in
    // a batch it reacted in): nobody waits on them (a waiting command names the types it
    // appended), and a busy log would otherwise cost a write per reactor per batch.
    let passed: Position | undefined;
    let written = 0;
    let flushTimer: NodeJS.Timeout | undefined;
    const flush = async () => {
      clearTimeout(flushTimer);
      flushTimer = undefined;
      const position = passed;
      passed = undefined;
      written = Date.now();
      if (position) await this.advance(reactor.name, position);
    };
    signal.addEventListener('abort', () => clearTimeout(flushTimer));
    const tail = this.tail;
    await tail?.ready;
    // After an event it could not read, the next read is its own: the tail holds the same copy.
    let readAgain = false;
    while (!signal.aborted) {
      try {
        const from = await this.checkpointOf(reactor.name);
        const handleBatch = async (events: RecordedEvent[]) => {
          let reacted = false;
          for (const event of events) {
            if (signal.aborted) return;
            if (handles.has(event.type)) {
              await flush();
              if (event.readError) {
                const delay = await this.fail(reactor.name, event, event.readError).catch(() => this.backoff.firstMs);
                await abortableSleep(delay, signal);
                throw new ReadAgain();
              }
              if (!(await this.reactTo(reactor, event, signal))) return;
              await this.advance(reactor.name, event.position);
              reacted = true;
            } else passed = event.position;
          }
          if (!passed) return;
          if (reacted || Date.now() - written >= PASSED_FLUSH_MS) await flush();
          else flushTimer ??= setTimeout(() => void flush().catch(() => {}), PASSED_FLUSH_MS);
        };
        const fromTail = !readAgain && tail?.covers(from);
        readAgain = false;
        if (fromTail && tail) await tail.follow(from, handleBatch, signal);
        else if (followAll) {
          // Its own reading of the store, until it reaches the events the shared tail holds.
          const caughtUp = new AbortController();
          const joining = async (events: RecordedEvent[]) => {
            await handleBatch(events);
            const last = events.at(-1);
            if (last && tail?.covers(last.position)) {
              await flush();
              caughtUp.abort();
            }
          };
          await followAll(from, joining, { signal: AbortSignal.any([signal, caughtUp.signal]) });
        } else await this.poll(from, handleBatch, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof BehindTheTail) {
          // Further behind than the tail holds: it reads the store itself from its checkpoint.
          await flush().catch(() => {});
          continue;
        }
        passed = undefined;
        if (error instanceof ReadAgain) {
          readAgain = true;
          continue;
        }
        this.log(`reactor ${reactor.name} could not read the log; trying again`, error);
        await abortableSleep(1000, signal);
      }
    }
  }

  /** For a store without `followAll`: reads `$all` after `from` every half second. */
  private async poll(from: Position, handle: (events: RecordedEvent[]) => Promise<void>, signal: AbortSignal) {
    let position = from;
    while (!signal.aborted) {
      const events = await this.store.readAll({ from: position });
      const last = events.at(-1);
      if (last && comparePositions(last.position, position) > 0) {
        await handle(events);
        position = last.position;
      } else await abortableSleep(500, signal);
    }
  }
}

function abortableSleep(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
