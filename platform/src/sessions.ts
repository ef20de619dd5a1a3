import { randomBytes } from 'node:crypto';
import type pg from 'pg';
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
}

const LIVE = `ended_at is null
  and last_seen_at > now() - make_interval(secs => ${SESSION_IDLE_SECONDS})
  and created_at > now() - make_interval(secs => ${SESSION_LIFETIME_SECONDS})`;

const CHECK = `select user_id, ended_reason, ended_at is not null as ended,
        last_seen_at <= now() - make_interval(secs => ${SESSION_IDLE_SECONDS}) as idle,
        created_at <= now() - make_interval(secs => ${SESSION_LIFETIME_SECONDS}) as expired
   from auth.sessions where id = $1`;

/**
 * Server-side sessions, in the command side's `auth` schema (tables: migrations/sessions); both
 * services read them on every authenticated request. The id is 256 random bits and travels only
 * inside the signed token (`sid`).
 */
export class Sessions implements SessionCheck {
  constructor(private readonly db: pg.Pool) {}

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
    return (ended.rowCount ?? 0) > 0;
  }

  /** Ends every open session of a user (but `except`); answers how many. */
  async endAllFor(userId: string, reason: SessionEndReason, except?: string): Promise<number> {
    const ended = await this.db.query(
      `update auth.sessions set ended_at = now(), ended_reason = $2
        where user_id = $1 and ended_at is null and id <> coalesce($3, '') returning 1`,
      [userId, reason, except ?? null],
    );
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
