import type pg from 'pg';
import { applyPending, EVENT_STORE_MIGRATIONS, withMigrationLock } from '../../migrations';

/** The append function's signature, by which a store made by an earlier release is told. */
const APPEND_FUNCTION = 'es.append_to_stream(text,bigint,uuid[],text[],jsonb[],jsonb[])';

/**
 * Creates the schema, or brings an existing store's up to date: its numbered migrations
 * (docs/migrations.md). When they replace an append function of a release that did not announce
 * appenders, an append running inside the old function, or a transaction begun before that may
 * still call its cached copy, would write events under a transaction id no reader of this release
 * waits for: so, still under the migrations lock, it then waits for every transaction running in
 * this database at that moment to end. Once per store, at the first start of such a release.
 * Answers the migrations applied.
 */
export function migrateEventStore(
  db: pg.Pool | pg.ClientBase,
  options: { log?: (message: string) => void } = {},
): Promise<string[]> {
  return withMigrationLock(db, async (client) => {
    const { rows } = await client.query<{ upgrading: boolean }>(
      `select to_regprocedure($1) is not null and to_regprocedure('es.announce_append()') is null as upgrading`,
      [APPEND_FUNCTION],
    );
    const applied = await applyPending(client, EVENT_STORE_MIGRATIONS);
    if (rows[0]?.upgrading) await waitForTransactionsRunningNow(client, options.log ?? (() => {}));
    return applied;
  });
}

/** Waits until every transaction running now in this database (but the caller's) has ended. */
async function waitForTransactionsRunningNow(client: pg.ClientBase, log: (message: string) => void) {
  // Each transaction holds a lock on its virtual transaction id, released when it ends. One that
  // waits for a lock the caller holds (another start's migration) is not waited for: it cannot end first.
  const running = await client.query<{ vxid: string; pid: number }>(
    `select l.virtualxid as vxid, l.pid from pg_locks l
      where l.locktype = 'virtualxid' and l.mode = 'ExclusiveLock' and l.granted and l.pid <> pg_backend_pid()
        and not pg_backend_pid() = any(pg_blocking_pids(l.pid))
        and l.pid in (select a.pid from pg_stat_activity a
                       where a.datid = (select oid from pg_database where datname = current_database()))`,
  );
  if (running.rows.length === 0) return;
  const vxids = running.rows.map((row) => row.vxid);
  log(
    `Event store upgrade: appenders now announce themselves to $all readers; waiting for the transactions begun before it to end (pids ${running.rows.map((row) => row.pid).join(', ')})`,
  );
  for (let delay = 5; ; delay = Math.min(delay * 2, 500)) {
    const left = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_locks l
        where l.locktype = 'virtualxid' and l.mode = 'ExclusiveLock' and l.granted and l.virtualxid = any($1)
          and not pg_backend_pid() = any(pg_blocking_pids(l.pid))`,
      [vxids],
    );
    if (left.rows[0]?.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
