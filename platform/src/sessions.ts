import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, SESSIONS_MIGRATIONS } from './migrations';

/** A session with no keepalive for this long is over (the UI's idle time-out). */
export const SESSION_IDLE_SECONDS = 3600;
/** A session is over this long after its login, active or not. */
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

export type SessionEndReason =
  | 'logout'
  | 'password-reset'
  | 'terminated'
  | 'role-changed'
  | 'account-ended'
  | 'ended-by-admin'
  | 'login-turned-off'
  | 'idle'
  | 'lifetime';

export type SessionState =
  | { live: true }
  | { live: false; reason: 'unknown' | 'other-user' | 'idle' | 'lifetime' | SessionEndReason };

export type LiveSession = {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  address: string | null;
};

/** What the token check needs: is this session still live for this user? */
export interface SessionCheck {
  check(sessionId: string, userId: string): Promise<SessionState>;
  /** Reuse live answers while the app runs (`Sessions.cacheChecks`); a check without it asks every time. */
  cacheChecks?(): Promise<void>;
  stopCaching?(): Promise<void>;
}

const LIVE = `ended_at is null
  and last_seen_at > now() - make_interval(secs => ${SESSION_IDLE_SECONDS})
  and created_at > now() - make_interval(secs => ${SESSION_LIFETIME_SECONDS})`;

const CHECK = `select user_id, ended_reason, ended_at is not null as ended,
        last_seen_at <= now() - make_interval(secs => ${SESSION_IDLE_SECONDS}) as idle,
        created_at <= now() - make_interval(secs => ${SESSION_LIFETIME_SECONDS}) as expired,
        extract(epoch from least(last_seen_at + make_interval(secs => ${SESSION_IDLE_SECONDS}),
          created_at + make_interval(secs => ${SESSION_LIFETIME_SECONDS})) - now()) * 1000 as live_ms
   from auth.sessions where id = $1`;

/** Notified with the user's id whenever one of their sessions ends, is deleted or shortened (migrations/sessions). */
export const SESSION_ENDED_CHANNEL = 'session_ended';
/** How long a live answer is reused at most, even with every end notified (a bound, should one be missed). */
export const SESSION_CACHE_MS = 30_000;

/**
 * Every Sessions of this process that reuses live answers: a session ended through any of them
 * is forgotten by all before `end` returns, so the next request is refused at once, without
 * waiting for the notification that tells the other processes.
 */
const caching = new Set<Sessions>();

/**
 * Server-side sessions, in the command side's `auth` schema (tables: migrations/sessions); both
 * services read them on every authenticated request. The id is 256 random bits and travels only
 * inside the signed token (`sid`).
 */
export class Sessions implements SessionCheck {
  /** Live answers reused by `check`, by session id; only while `cacheChecks` listens. */
  private live = new Map<string, { userId: string; until: number }>();
  /** Moves on every forgetting: a check that began before one may not store what it read. */
  private forgettings = 0;
  private listener?: pg.Client;
  private stopped = true;

  constructor(private readonly db: pg.Pool) {}

  /**
   * Reuses a live answer of `check` (for at most SESSION_CACHE_MS, never past the session's idle
   * time or lifetime), so a request costs no round trip for its session. Correct only while every
   * end of a session is heard: a session ended in this process is forgotten at once (`end`,
   * `endAllFor`); one ended anywhere else (another instance, a deletion, plain SQL) is notified by
   * the table's trigger on SESSION_ENDED_CHANNEL. Without that connection nothing is reused.
   */
  async cacheChecks(): Promise<void> {
    this.stopped = false;
    const listener = new pg.Client(this.db.options);
    this.listener = listener;
    let lost = false;
    const relisten = () => {
      if (lost) return;
      lost = true;
      // Ends may be missed from here on: nothing is reused until listening again.
      caching.delete(this);
      this.forgetAll();
      listener.end().catch(() => {});
      if (this.stopped || this.listener !== listener) return;
      setTimeout(() => {
        if (!this.stopped && this.listener === listener) void this.cacheChecks();
      }, 1000);
    };
    listener.on('error', relisten);
    listener.on('end', relisten);
    listener.on('notification', (message) => this.forgetUser(message.payload ?? ''));
    try {
      await listener.connect();
      await listener.query(`listen ${SESSION_ENDED_CHANNEL}`);
    } catch {
      // Checked on every request meanwhile, as without a cache; tried again in a second.
      relisten();
      return;
    }
    if (!lost && !this.stopped && this.listener === listener) caching.add(this);
  }

  /** Stops reusing answers and closes the listening connection. */
  async stopCaching() {
    this.stopped = true;
    caching.delete(this);
    this.forgetAll();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
  }

  private forgetAll() {
    this.forgettings++;
    this.live.clear();
  }

  private forgetUser(userId: string) {
    this.forgettings++;
    for (const [id, entry] of this.live) if (entry.userId === userId) this.live.delete(id);
  }

  private forgetSession(sessionId: string) {
    this.forgettings++;
    this.live.delete(sessionId);
  }

  /** Its table, for a process that runs no other migrations (docs/migrations.md). */
  async ensureSchema() {
    await migrate(this.db, SESSIONS_MIGRATIONS);
  }

  /** A new live session for this user; answers its id. */
  async start(userId: string, meta: { userAgent?: string; address?: string } = {}): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await this.db.query('insert into auth.sessions (id, user_id, user_agent, address) values ($1, $2, $3, $4)', [
      id,
      userId,
      meta.userAgent?.slice(0, 300) ?? null,
      meta.address ?? null,
    ]);
    return id;
  }

  /**
   * Whether the session is live. One over its idle time or lifetime is recorded as ended then
   * (the only write, once per session).
   */
  async check(sessionId: string, userId: string): Promise<SessionState> {
    const known = this.live.get(sessionId);
    if (known && known.userId === userId && known.until > Date.now()) return { live: true };
    const forgettings = this.forgettings;
    // Asked on every request: a named statement is parsed and planned once per connection.
    const found = await this.db.query({ name: 'session-check', text: CHECK, values: [sessionId] });
    const row = found.rows[0];
    if (!row) return { live: false, reason: 'unknown' };
    if (row.user_id !== userId) return { live: false, reason: 'other-user' };
    if (row.ended) return { live: false, reason: row.ended_reason ?? 'logout' };
    if (row.expired || row.idle) {
      const reason = row.expired ? 'lifetime' : 'idle';
      await this.end(sessionId, reason);
      return { live: false, reason };
    }
    // Not when something was forgotten while reading: the session may have ended after this read.
    if (caching.has(this) && forgettings === this.forgettings) {
      const until = Date.now() + Math.min(Number(row.live_ms), SESSION_CACHE_MS);
      this.live.set(sessionId, { userId, until });
    }
    return { live: true };
  }

  /**
   * Which of these sessions are live, in one query for all of them (the open live-update streams'
   * periodic check). Unlike `check`, it records no session as ended: the next request does.
   */
  async liveAmong(sessionIds: readonly string[]): Promise<Set<string>> {
    if (sessionIds.length === 0) return new Set();
    const found = await this.db.query<{ id: string }>(`select id from auth.sessions where id = any($1) and ${LIVE}`, [
      [...sessionIds],
    ]);
    return new Set(found.rows.map((row) => row.id));
  }

  /** Extends a live session's idle time; false when it is no longer live. */
  async touch(sessionId: string): Promise<boolean> {
    const touched = await this.db.query(
      `update auth.sessions set last_seen_at = now() where id = $1 and ${LIVE} returning 1`,
      [sessionId],
    );
    return (touched.rowCount ?? 0) > 0;
  }

  /** Ends one session (of `userId`, when given); answers whether it was still open. */
  async end(sessionId: string, reason: SessionEndReason, userId?: string): Promise<boolean> {
    const ended = await this.db.query(
      `update auth.sessions set ended_at = now(), ended_reason = $2
        where id = $1 and ended_at is null and ($3::text is null or user_id = $3) returning 1`,
      [sessionId, reason, userId ?? null],
    );
    for (const sessions of caching) sessions.forgetSession(sessionId);
    return (ended.rowCount ?? 0) > 0;
  }

  /** Ends every open session of a user (but `except`); answers how many. */
  async endAllFor(userId: string, reason: SessionEndReason, except?: string): Promise<number> {
    const ended = await this.db.query(
      `update auth.sessions set ended_at = now(), ended_reason = $2
        where user_id = $1 and ended_at is null and id <> coalesce($3, '') returning 1`,
      [userId, reason, except ?? null],
    );
    for (const sessions of caching) sessions.forgetUser(userId);
    return ended.rowCount ?? 0;
  }

  /** A user's live sessions, the most recently active first. */
  async listLive(userId: string): Promise<LiveSession[]> {
    const found = await this.db.query(
      `select id, created_at, last_seen_at, user_agent, address from auth.sessions
        where user_id = $1 and ${LIVE} order by last_seen_at desc`,
      [userId],
    );
    return found.rows.map((row) => ({
      id: row.id,
      createdAt: new Date(row.created_at).toISOString(),
      lastSeenAt: new Date(row.last_seen_at).toISOString(),
      userAgent: row.user_agent,
      address: row.address,
    }));
  }
}
