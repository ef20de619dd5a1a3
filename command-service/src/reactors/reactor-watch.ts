import { comparePositions, type Position } from '@agency/platform';
import pg from 'pg';
import { REACTOR_CHANNEL } from './reactor-runner';

type ReactorState = { position: Position; stalled: boolean; handles: ReadonlySet<string> };
type Waiter = {
  names: readonly string[];
  position: Position;
  types?: readonly string[];
  resolve: (reached: boolean) => void;
};

/**
 * Lets a command wait, boundedly, until the reactors that follow from its events have reacted
 * (the consultation's invoice issued, say), so its answer can name what they did. Knows each
 * reactor's checkpoint from `command.reactor_checkpoints`, re-read on every NOTIFY and polled while
 * anyone waits. A reactor stopped at an event answers at once: the command stands, its follow-up
 * is under way and shown as such.
 */
export class ReactorWatch {
  private reactors = new Map<string, ReactorState>();
  private waiters = new Set<Waiter>();
  private listener?: pg.Client;
  private poller?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private dirty = false;

  constructor(private readonly pool: pg.Pool) {}

  async start() {
    this.listener = new pg.Client(this.pool.options);
    this.listener.on('error', () => {});
    await this.listener.connect();
    // Read again only when someone waits: a waiter that arrives later reads first anyway.
    this.listener.on('notification', () => this.waiters.size > 0 && void this.poll());
    await this.listener.query(`listen ${REACTOR_CHANNEL}`);
    await this.poll();
    this.poller = setInterval(() => this.waiters.size > 0 && this.poll(), 250);
  }

  async stop() {
    clearInterval(this.poller);
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters.clear();
    await this.listener?.end().catch(() => {});
  }

  private poll(): Promise<void> {
    if (this.polling) {
      this.dirty = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.dirty = false;
        const result = await this.pool
          .query(
            `select name, handles, commit_position, prepare_position, failure is not null as stalled
               from command.reactor_checkpoints`,
          )
          .catch(() => undefined);
        if (result) {
          this.reactors = new Map(
            result.rows.map((row) => [
              row.name,
              {
                position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
                stalled: row.stalled,
                handles: new Set<string>(row.handles),
              },
            ]),
          );
        }
        for (const waiter of this.waiters) {
          const outcome = this.outcome(waiter.names, waiter.position, waiter.types);
          if (outcome !== undefined) {
            this.waiters.delete(waiter);
            waiter.resolve(outcome);
          }
        }
      } while (this.dirty);
    })().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  /**
   * true: every one reached it (or handles none of `types`, when they are known); false: one is
   * stopped short of it; undefined: not yet.
   */
  private outcome(names: readonly string[], position: Position, types?: readonly string[]): boolean | undefined {
    let reached = true;
    for (const name of names) {
      const state = this.reactors.get(name);
      if (state && types && !types.some((type) => state.handles.has(type))) continue;
      if (state && comparePositions(state.position, position) >= 0) continue;
      if (state?.stalled) return false;
      reached = false;
    }
    return reached ? true : undefined;
  }

  /**
   * Resolves true once every named reactor has reacted up to `position` (`types`: the event types
   * up to there, when known: a reactor that handles none of them has nothing to do), false after
   * `timeoutMs`, a stop, or when one is stopped at an event.
   */
  async waitFor(
    names: readonly string[],
    position: Position,
    timeoutMs: number,
    types?: readonly string[],
  ): Promise<boolean> {
    await this.poll();
    const now = this.outcome(names, position, types);
    if (now !== undefined) return now;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        names,
        position,
        types,
        resolve: (reached) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}
