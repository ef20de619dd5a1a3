import { comparePositions, type Position, parsePosition } from '@agency/platform';
import pg from 'pg';

const CHECKPOINT_CHANNEL = 'projection_checkpoint';

type ProjectionState = { position: Position; stalled: boolean; handles: Set<string> };
type Waiter = { position: Position; types?: readonly string[]; resolve: (reached: boolean) => void };

/**
 * The checkpoints a notification says moved (`name=commit/prepare`, space-separated, as the
 * projection runner sends them after a live batch), or undefined when it does not say: an empty
 * payload (a failure, a projection joining or rebuilt) or one this reader does not understand.
 */
export function movedCheckpoints(payload: string | undefined) {
  if (!payload) return undefined;
  const moves: { name: string; position: Position }[] = [];
  for (const part of payload.split(' ')) {
    const match = /^([^=\s]+)=(\d+\/\d+)$/.exec(part);
    if (!match) return undefined;
    moves.push({ name: match[1] as string, position: parsePosition(match[2] as string) });
  }
  return moves;
}

/**
 * Read-your-writes: knows how far each live projection has got, which event types it handles
 * and whether it is stopped at an event it cannot apply (all from `read.projection_checkpoints`),
 * and lets a command wait, boundedly, until the projections that handle its events have applied
 * them. A NOTIFY of the checkpoint channel that names the moved checkpoints settles the waiters
 * from its payload alone; an empty one re-reads the table, as does a slow poll while anyone waits.
 */
export class ProjectionWatch {
  private projections = new Map<string, ProjectionState>();
  private waiters = new Set<Waiter>();
  private listener?: pg.Client;
  private poller?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private dirty = false;

  constructor(private readonly pool: pg.Pool) {}

  private stopped = false;

  async start() {
    this.stopped = false;
    await this.listen();
    await this.poll();
    this.poller = setInterval(() => this.waiters.size > 0 && this.poll(), 250);
  }

  /** LISTENs on the checkpoint channel; a lost connection is replaced (polling covers the gap). */
  private async listen() {
    const listener = new pg.Client(this.pool.options);
    this.listener = listener;
    let lost = false;
    const relisten = () => {
      if (lost || this.stopped) return;
      lost = true;
      listener.end().catch(() => {});
      const retry = () => {
        if (this.stopped) return;
        this.listen()
          .then(() => this.poll())
          .catch(() => setTimeout(retry, 1000));
      };
      setTimeout(retry, 100);
    };
    listener.on('error', relisten);
    listener.on('end', relisten);
    listener.on('notification', (message) => this.notified(message.payload));
    await listener.connect();
    await listener.query(`listen ${CHECKPOINT_CHANNEL}`);
  }

  /**
   * Moves the checkpoints a notification names and settles the waiters they reach; a payload that
   * names none, or a projection not known yet, re-reads the table instead. A checkpoint only moves
   * forward here (a rebuild that resets one notifies empty), and one written clear of a failure is
   * no longer stalled.
   */
  private notified(payload: string | undefined) {
    const moves = movedCheckpoints(payload);
    if (!moves || moves.some(({ name }) => !this.projections.has(name))) {
      void this.poll();
      return;
    }
    for (const { name, position } of moves) {
      const projection = this.projections.get(name) as ProjectionState;
      if (comparePositions(position, projection.position) > 0) projection.position = position;
      projection.stalled = false;
    }
    // A read under way may have started before this move: it reads again rather than undo it.
    if (this.polling) this.dirty = true;
    this.settle();
  }

  /** Re-reads the checkpoints; a wake-up that arrives while reading causes one more read. */
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
             from read.projection_checkpoints`,
          )
          .catch(() => undefined);
        if (result) {
          this.projections = new Map(
            result.rows.map((row) => [
              row.name,
              {
                position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
                stalled: row.stalled,
                handles: new Set<string>(row.handles),
              },
            ]),
          );
          this.settle();
        }
      } while (this.dirty);
    })().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  /** The projections a wait depends on: those handling one of `types` (every one when unknown). */
  private concerned(types?: readonly string[]) {
    const all = [...this.projections.values()];
    return types ? all.filter((p) => types.some((type) => p.handles.has(type))) : all;
  }

  /**
   * true: visible (every concerned projection is past it, stalled or not: one stopped at a later
   * event has applied this one); false: a concerned projection short of it is stalled; undefined: not yet.
   */
  private outcome(waiter: Pick<Waiter, 'position' | 'types'>): boolean | undefined {
    if (this.projections.size === 0) return undefined;
    const behind = this.concerned(waiter.types).filter((p) => comparePositions(p.position, waiter.position) < 0);
    if (behind.length === 0) return true;
    return behind.some((p) => p.stalled) ? false : undefined;
  }

  private settle() {
    for (const waiter of this.waiters) {
      const outcome = this.outcome(waiter);
      if (outcome !== undefined) {
        this.waiters.delete(waiter);
        waiter.resolve(outcome);
      }
    }
  }

  /**
   * Resolves true once every projection handling one of `types` (every projection when not
   * given) has applied `position`; false at once if one of them is stopped at an event it cannot
   * apply, or after `timeoutMs`.
   */
  async waitFor(position: Position, timeoutMs = 5000, types?: readonly string[]): Promise<boolean> {
    let now = this.outcome({ position, types });
    // "Stalled" is read again before it is answered: the projection may have recovered since the
    // last read (and a lost LISTEN connection would otherwise keep that stale answer).
    if (now === false) {
      await this.poll();
      now = this.outcome({ position, types });
    }
    if (now !== undefined) return now;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiters.delete(waiter)) resolve(false);
      }, timeoutMs);
      // A wait answered before its time is up takes its timer with it.
      const waiter: Waiter = {
        position,
        types,
        resolve: (reached) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      this.waiters.add(waiter);
    });
  }

  async stop() {
    this.stopped = true;
    clearInterval(this.poller);
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters.clear();
    await this.listener?.end().catch(() => {});
  }
}
