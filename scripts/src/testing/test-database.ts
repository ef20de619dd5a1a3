import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** How long a test database's own connections get to close before it is dropped. */
const CLOSE_WAIT_MS = 5_000;

/**
 * The connections still open to `database` once its test has ended them: `pool.end()` resolves
 * when the pool has let go of its clients, before their sessions have closed, so those are
 * waited for (a bounded wait, polled; a pool's idle connections would close by themselves only
 * after its 10 s idle timeout, so one the test never ended is still there when the wait is up).
 */
async function sessionsLeftOpen(admin: pg.Client, database: string) {
  const deadline = Date.now() + CLOSE_WAIT_MS;
  for (;;) {
    const sessions = await admin.query<{ pid: number; application_name: string; state: string; query: string }>(
      `select pid, application_name, state, left(query, 200) as query
         from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
      [database],
    );
    if (sessions.rows.length === 0 || Date.now() > deadline) return sessions.rows;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Ends a pool and waits for its connections to close: `pool.end()` resolves once the pool has let
 * go of its clients, before their sessions have closed, and a server stopped in that gap ends
 * them with an error the pool then raises.
 */
export async function endPool(pool: pg.Pool) {
  let open = pool.totalCount;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => {
      if (--open === 0) resolve();
    });
  });
  await pool.end();
  await closed;
}

/** A new, empty database in the run's PostgreSQL, dropped by the returned `drop`. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = inject('databaseUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    /**
     * Drops the database once its connections have closed. A forced drop any sooner would end a
     * closing connection with "terminating connection due to administrator command", an error
     * on a pool its test has finished with, reported as an unhandled error of whichever test
     * file runs next in the same worker. A connection still open after the wait was never
     * closed: the drop ends it and fails, naming it, so the test file that left it open fails.
     */
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        const left = await sessionsLeftOpen(client, name);
        await client.query(`drop database if exists ${name} with (force)`);
        if (left.length > 0) {
          throw new Error(
            `${left.length} connection(s) to the test database were still open when it was dropped ` +
              `(a pool or client the test did not end):\n${left
                .map((s) => `  pid ${s.pid} ${s.application_name || '-'} ${s.state}: ${s.query}`)
                .join('\n')}`,
          );
        }
      } finally {
        await client.end();
      }
    },
  };
}
