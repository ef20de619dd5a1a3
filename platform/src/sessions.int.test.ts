import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sessions } from './sessions';

describe('the session check reuses live answers, and forgets them when a session ends (real PostgreSQL)', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  let sessions: Sessions;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url });
    sessions = new Sessions(pool);
    await sessions.ensureSchema();
    await sessions.cacheChecks();
  });
  afterAll(async () => {
    await sessions.stopCaching();
    await pool.end();
    await drop();
  });

  it('answers a live session again without reading the table', async () => {
    const sid = await sessions.start('u-reuse');
    expect(await sessions.check(sid, 'u-reuse')).toEqual({ live: true });
    // With the table out of reach, only a reused answer can still say live.
    await pool.query('alter table auth.sessions rename to sessions_away');
    try {
      expect(await sessions.check(sid, 'u-reuse')).toEqual({ live: true });
      // Not for another user's token naming the same session.
      await expect(sessions.check(sid, 'u-other')).rejects.toThrow();
    } finally {
      await pool.query('alter table auth.sessions_away rename to sessions');
    }
  });

  it('refuses at once a session ended in this process, by any of its Sessions (a role change, a logout)', async () => {
    const first = await sessions.start('u-role');
    const second = await sessions.start('u-role');
    const third = await sessions.start('u-logout');
    for (const [sid, user] of [
      [first, 'u-role'],
      [second, 'u-role'],
      [third, 'u-logout'],
    ] as const)
      expect(await sessions.check(sid, user)).toEqual({ live: true });
    // As the accounts do when a role changes: a Sessions of their own.
    expect(await new Sessions(pool).endAllFor('u-role', 'role-changed')).toBe(2);
    expect(await sessions.check(first, 'u-role')).toEqual({ live: false, reason: 'role-changed' });
    expect(await sessions.check(second, 'u-role')).toEqual({ live: false, reason: 'role-changed' });
    expect(await new Sessions(pool).end(third, 'logout')).toBe(true);
    expect(await sessions.check(third, 'u-logout')).toEqual({ live: false, reason: 'logout' });
  });

  it('refuses a session ended or shortened elsewhere (another instance, plain SQL) once the database tells it', async () => {
    const ended = await sessions.start('u-elsewhere');
    const idle = await sessions.start('u-idle');
    expect(await sessions.check(ended, 'u-elsewhere')).toEqual({ live: true });
    expect(await sessions.check(idle, 'u-idle')).toEqual({ live: true });
    const elsewhere = new pg.Client(pool.options);
    await elsewhere.connect();
    try {
      await elsewhere.query("update auth.sessions set ended_at = now(), ended_reason = 'terminated' where id = $1", [
        ended,
      ]);
      await elsewhere.query("update auth.sessions set last_seen_at = now() - interval '2 hours' where id = $1", [idle]);
    } finally {
      await elsewhere.end();
    }
    // Well within the longest reuse (30 s): only the notification can end it this soon.
    await expect
      .poll(() => sessions.check(ended, 'u-elsewhere'), { timeout: 10_000 })
      .toEqual({
        live: false,
        reason: 'terminated',
      });
    await expect
      .poll(() => sessions.check(idle, 'u-idle'), { timeout: 10_000 })
      .toEqual({ live: false, reason: 'idle' });
  });
});
