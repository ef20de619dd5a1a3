/**
 * How far a reader of `$all` may go: the *horizon*, the transaction id below which every event
 * that will ever commit already has, and is visible to the reader's statement.
 *
 * Readers used to stop at `pg_snapshot_xmin`: below it every transaction of the cluster has ended.
 * That is safe but counts every transaction with an id anywhere in the cluster (another database,
 * a temp table, a `CREATE INDEX`, an as-of view's scratch schema, `npm run verify`), so any long
 * unrelated write froze every projection, reactor and read-your-writes wait. The horizon now
 * counts only transactions that may write events.
 *
 * The appenders' side (es.announce_append, schema.ts): every transaction that writes es.events
 * takes a shared, transaction-level advisory lock on one fixed key, APPENDER_LOCK, *before* its
 * transaction id exists, and refuses to write events once it has an id without holding that lock
 * (another write came first, or a savepoint rolled the lock back). A fixed key rather than one
 * derived from the transaction id: a lock keyed by the id can only be taken after the id exists,
 * and a reader that looked in between would see neither the lock nor the events, and pass them.
 * Nothing needs to store the id either: the reader finds it in PostgreSQL's own lock on it.
 *
 * The readers' side, in one statement with snapshot S that reads `pg_locks` once, after S was
 * taken. The view copies the main lock table under all its partition locks at once, and both the
 * advisory locks and the lock each transaction holds on its own id live there, so *which* locks
 * are held is one moment's. Who holds them is told by the holding backend's `pid`, and only by
 * it: a row's `virtualtransaction` is read from the backend's PGPROC as the copy reaches that
 * row, and a committing backend clears its local transaction id (ProcArrayEndTransaction) before
 * it releases its locks (ProcReleaseLocks), without any lock the copy holds. A copy that meets an
 * appender's commit between its two rows lists its id lock under `3/7` and APPENDER_LOCK under
 * `3/0`: matched by virtual transaction it looked like a non-appender, readers passed its id, and
 * its events, invisible to S, were skipped for good. A backend's pid stays in its PGPROC until
 * the backend exits (ProcKill), after its transaction has ended and released its locks, so every
 * row of a transaction's locks reads the same pid, whenever the copy reaches it.
 * A transaction id x running in S is *proven a non-appender* when, in that copy, x's own
 * ExclusiveLock is held by a backend (pid P, not null) and P holds no APPENDER_LOCK. Then
 *
 *     horizon = least(xmax(S), own id if any, min{ x running in S : x not proven a non-appender })
 *
 * Why nothing below the horizon can be skipped: take an event whose transaction id x is below it.
 * x < xmax(S), so x had either ended before S (then S sees the event if it committed) or was
 * running in S (pg_current_snapshot lists every running top-level id below xmax(S), and an event
 * carries its top-level id, pg_current_xact_id). If running, x was proven a non-appender: at the
 * copy P still held the lock on x, so x had not released its locks yet, and P held no
 * APPENDER_LOCK. A backend holds locks of its current transaction only (session locks aside,
 * which only count it in: es.announce_append takes none for an announcement, as a session may
 * release one while its transaction runs), and x took APPENDER_LOCK before its id existed, so before the lock on
 * x; at its end it releases the lock on x (default lock method) before APPENDER_LOCK (user lock
 * method). So x never had APPENDER_LOCK, or lost it with a rolled-back savepoint and with it the
 * events written under it; and es.announce_append refuses it from now on because its id exists.
 * So x writes no event: contradiction. An id handed out after S is >= xmax(S), above the horizon.
 * Hence every event below the horizon is visible to S, and delivering in (transaction_id,
 * global_position) order up to it never passes one that commits later. The horizon may be lower
 * in a later read (an unrelated transaction that ended between S and the copy counts as unknown),
 * which only delays: nothing new appears below it.
 *
 * The cases the rule leaves "not proven", so they hold readers back (never skip):
 * - an id PostgreSQL has published but whose lock is not taken yet (AssignTransactionId does one
 *   right after the other), or a transaction that ended between S and the copy: brief;
 * - at the end of a transaction its id's lock (default lock method) is released before its
 *   advisory locks (user lock method, ProcReleaseLocks), so an appender is never seen holding its
 *   id without APPENDER_LOCK while its events may still become visible;
 * - a prepared (two-phase) transaction, whose locks have no pid, and any running id while a
 *   prepared transaction holds APPENDER_LOCK: PREPARE moves locks one partition at a time. Two-
 *   phase commit is off by default (max_prepared_transactions = 0) and the product never uses it;
 * - a collision: anything else holding APPENDER_LOCK in this database is taken for an appender,
 *   so a reader waits for it as it waited for every transaction before; never a skip. No lock of
 *   this repository uses the two-int form (objsubid 2), so none collides today;
 * - a hot standby: its snapshots list running ids differently and its lock table holds the
 *   primary's locks only as replayed, so there the horizon stays `pg_snapshot_xmin`.
 *
 * Appenders in other databases of the cluster take their lock in their own database, so they
 * hold back only their own store's readers.
 */
export const APPENDER_LOCK = { key1: 7412001, key2: 1 } as const;

/** The two inputs of the horizon; a test of the rule gives a lock copy and a snapshot of its own. */
export type HorizonInputs = { locks: string; snapshot: string };

const LIVE: HorizonInputs = { locks: 'pg_locks', snapshot: 'pg_current_snapshot()' };

/**
 * Common table expressions (after `with`) that define `holders(id)`, the running transactions that
 * may still write events (or are not known not to), and `horizon(id)`: read `$all` strictly below
 * `(select id from horizon)`. `pg_locks` is read once (materialized), after the statement's snapshot.
 */
export function horizonCtes({ locks, snapshot }: HorizonInputs = LIVE): string {
  return `
  appender_locks as materialized (
    select l.locktype, l.transactionid, l.pid
      from ${locks} l
     where (l.locktype = 'transactionid' and l.mode = 'ExclusiveLock' and l.granted)
        or (l.locktype = 'advisory' and l.classid = ${APPENDER_LOCK.key1} and l.objid = ${APPENDER_LOCK.key2}
            and l.objsubid = 2 and l.database = (select oid from pg_database where datname = current_database()))
  ),
  holders as (
    select x.id from pg_snapshot_xip(${snapshot}) as x(id)
     where exists (select 1 from appender_locks p where p.locktype = 'advisory' and p.pid is null)
        or not exists (
          select 1 from appender_locks t
           where t.locktype = 'transactionid' and t.transactionid = xid(x.id) and t.pid is not null
             and not exists (
               select 1 from appender_locks a where a.locktype = 'advisory' and a.pid = t.pid))
  ),
  horizon as (
    select case when pg_is_in_recovery() then pg_snapshot_xmin(${snapshot})
                else least(pg_snapshot_xmax(${snapshot}), pg_current_xact_id_if_assigned(),
                           (select min(h.id) from holders h))
           end as id
  )`;
}

export const HORIZON_CTES = horizonCtes();
