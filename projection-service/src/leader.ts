import pg from 'pg';
import { ADVISORY_LOCKS } from './advisory-locks';

/** The session-level advisory lock whose holder runs the live projections. */
export const PROJECTION_LEADER_LOCK = ADVISORY_LOCKS.projectionLeader;

export type LeadershipOptions = {
  /** How often a follower tries for the lock, and the leader checks its lock session is alive. */
  retryMs?: number;
  /** How long the leader's heartbeat may go unanswered before its lock session counts as lost. */
  heartbeatTimeoutMs?: number;
  log?: (message: string, error?: unknown) => void;
};

/** A heartbeat that was not answered in time. */
export class HeartbeatTimeout extends Error {
  constructor(ms: number) {
    super(`the lock session did not answer within ${ms} ms`);
  }
}

/**
 * The lock session's own settings: a statement that takes too long is cancelled by the server, and
 * the server probes an idle connection (after 10 s, every 5 s, 3 times), so it ends the session of
 * a leader whose machine or network went away, which frees the lock for another instance, instead
 * of keeping it for the operating system's two hours.
 */
export const lockSessionSettings = (heartbeatTimeoutMs: number) => [
  `set statement_timeout = ${Math.max(1, Math.round(heartbeatTimeoutMs))}`,
  'set tcp_keepalives_idle = 10',
  'set tcp_keepalives_interval = 5',
  'set tcp_keepalives_count = 3',
];

/**
 * `work`, or a rejection with HeartbeatTimeout once `ms` have passed without its answer: a query on
 * a half-open connection never answers, and never fails either.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HeartbeatTimeout(ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

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
  private readonly heartbeatTimeoutMs: number;
  private readonly log: (message: string, error?: unknown) => void;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly onLead: () => void,
    private readonly onLose: () => void,
    options: LeadershipOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 1500;
    this.heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 5000;
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
        // The leader's heartbeat: a lock session that no longer answers (in time) is a lock no longer held.
        await withDeadline(client.query('select 1'), this.heartbeatTimeoutMs);
      } else {
        const result = await withDeadline(
          client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [PROJECTION_LEADER_LOCK]),
          this.heartbeatTimeoutMs,
        );
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
    // The client probes its side of the connection too, from 10 s of silence rather than the OS's 2 h.
    const client = new pg.Client({
      ...this.connection,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      application_name: 'projection-leader',
    });
    client.on('error', (error) => {
      if (this.client === client) this.lost(error);
    });
    client.on('end', () => {
      if (this.client === client) this.lost(new Error('lock session ended'));
    });
    this.client = client;
    await withDeadline(client.connect(), this.heartbeatTimeoutMs);
    await withDeadline(client.query(lockSessionSettings(this.heartbeatTimeoutMs).join('; ')), this.heartbeatTimeoutMs);
    return client;
  }

  /** The lock session is gone: whatever it held is freed; a leader steps down and tries again later. */
  private lost(error: unknown) {
    const client = this.client;
    this.client = undefined;
    if (client) closeAtOnce(client);
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
    if (client) await withDeadline(client.end(), this.heartbeatTimeoutMs).catch(() => closeAtOnce(client));
  }
}

/**
 * Ends a session that may no longer answer: a polite end would wait for the server's goodbye for
 * ever on a half-open connection, so the socket is closed too, which a server still listening sees
 * at once (and frees the session's lock); one that is not listening any more ends the session by
 * its keepalive probes.
 */
function closeAtOnce(client: pg.Client) {
  client.end().catch(() => {});
  (client as unknown as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
}
