import pg from 'pg';
import { ADVISORY_LOCKS } from './advisory-locks';

/** The session-level advisory lock whose holder runs the live projections. */
export const PROJECTION_LEADER_LOCK = ADVISORY_LOCKS.projectionLeader;

export type LeadershipOptions = {
  /** How often a follower tries for the lock, and the leader checks its lock session is alive. */
  retryMs?: number;
  log?: (message: string, error?: unknown) => void;
};

/**
 * Exactly one of several instances on one database runs the projections. Each instance holds a
 * dedicated connection for its lifetime and tries `pg_try_advisory_lock` on it every `retryMs`;
 * whoever gets the lock leads (`onLead`) until that connection is lost (`onLose`) or it stops.
 * A leader that dies loses its connection, so PostgreSQL frees the lock and a follower takes over
 * at its next try, within seconds. The others serve commands and queries and wait for the
 * leader's checkpoints (read.projection_checkpoints and its NOTIFY) for read-your-writes.
 *
 * Leadership saves work; it is not what keeps projections correct: every batch takes the writer
 * lock and skips events at or before each projection's checkpoint, so even a leader that has not
 * yet noticed it lost its lock applies nothing twice.
 */
export class ProjectionLeadership {
  private client?: pg.Client;
  private timer?: NodeJS.Timeout;
  private leading = false;
  private stopped = false;
  private readonly retryMs: number;
  private readonly log: (message: string, error?: unknown) => void;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly onLead: () => void,
    private readonly onLose: () => void,
    options: LeadershipOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 1500;
    this.log = options.log ?? (() => {});
  }

  get isLeader() {
    return this.leading;
  }

  /** The backend pid of the lock session (tests end it to simulate a leader's death). */
  get sessionPid(): number | undefined {
    return (this.client as unknown as { processID?: number } | undefined)?.processID;
  }

  /** Tries at once; resolves after the first try, leading or not. */
  async start() {
    this.stopped = false;
    await this.tick();
  }

  private async tick() {
    if (this.stopped) return;
    try {
      const client = await this.session();
      if (this.leading) {
        // The leader's heartbeat: a lock session that no longer answers is a lock no longer held.
        await client.query('select 1');
      } else {
        const result = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
          PROJECTION_LEADER_LOCK,
        ]);
        if (result.rows[0]?.locked && !this.stopped) {
          this.leading = true;
          this.log('this instance now runs the projections');
          this.onLead();
        }
      }
    } catch (error) {
      this.lost(error);
    } finally {
      if (!this.stopped) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.tick(), this.retryMs);
      }
    }
  }

  private async session(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ ...this.connection, keepAlive: true, application_name: 'projection-leader' });
    client.on('error', (error) => {
      if (this.client === client) this.lost(error);
    });
    client.on('end', () => {
      if (this.client === client) this.lost(new Error('lock session ended'));
    });
    this.client = client;
    await client.connect();
    return client;
  }

  /** The lock session is gone: whatever it held is freed; a leader steps down and tries again later. */
  private lost(error: unknown) {
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => {});
    if (this.leading) {
      this.leading = false;
      this.log('lost the projection lock session; stopped running the projections', error);
      this.onLose();
    }
  }

  /** Steps down (the lock is freed with its session) and stops trying. */
  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    if (this.leading) {
      this.leading = false;
      this.onLose();
    }
    await client?.end().catch(() => {});
  }
}
