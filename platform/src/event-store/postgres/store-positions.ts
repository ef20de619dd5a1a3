import type pg from 'pg';

/**
 * `$all` positions are PostgreSQL transaction ids. A database dumped and restored into another
 * cluster (or its files moved to one) keeps its events' ids while the cluster hands out its own,
 * possibly smaller, ones: new events would sort before old ones and behind every checkpoint,
 * and never be delivered. Such a store must be rebased before use.
 */
export class StorePositionsInvalid extends Error {
  readonly code = 'store_positions_invalid';
  constructor(
    readonly newest: bigint,
    readonly next: bigint,
  ) {
    super(
      `The event store's newest event has transaction id ${newest}, but this PostgreSQL cluster ` +
        `hands out ids from ${next}: the database was restored or moved from another cluster, and ` +
        'new events would sort before the old ones and never reach the read models. ' +
        'Stop the product and run `npm run store:rebase` (with the same DATA_DIR or DATABASE_URL) ' +
        'to renumber the positions; the read models are rebuilt at the next start.',
    );
  }
}

type Sql = Pick<pg.Pool, 'query'>;

export type StorePositions = {
  valid: boolean;
  newest: bigint | null;
  next: bigint;
  transactions: number;
  events: number;
};

/** Whether every stored event's transaction id is below the ids this cluster will hand out. */
export async function checkStorePositions(sql: Sql): Promise<StorePositions> {
  // xmax is the first id not yet handed out (reading it takes no transaction id).
  const result = await sql.query<{ newest: string | null; next: string; transactions: string; events: string }>(
    `select (select max(transaction_id) from es.events)::text as newest,
            pg_snapshot_xmax(pg_current_snapshot())::text as next,
            (select count(distinct transaction_id) from es.events) as transactions,
            (select count(*) from es.events) as events`,
  );
  const row = result.rows[0]!;
  const newest = row.newest === null ? null : BigInt(row.newest);
  const next = BigInt(row.next);
  return {
    valid: newest === null || newest < next,
    newest,
    next,
    transactions: Number(row.transactions),
    events: Number(row.events),
  };
}

/** At start: refuses a store whose positions this cluster would not continue. */
export async function assertStorePositionsValid(sql: Sql): Promise<void> {
  const positions = await checkStorePositions(sql);
  if (!positions.valid) throw new StorePositionsInvalid(positions.newest!, positions.next);
}

/** The smallest normal transaction id: 0–2 are PostgreSQL's invalid, bootstrap and frozen ids. */
const FIRST_ID = 3n;
/** Ids left between the rebased events and the cluster's, for transactions running meanwhile. */
const HEADROOM = 1000n;

/**
 * Renumbers every event's transaction id to 3, 4, … in `$all` order (events of one transaction
 * keep one id, and their order by position), all below the ids this cluster hands out next, so
 * new events follow the old ones. When the cluster has handed out too few ids for that, it first
 * uses up enough of them. `alsoInTransaction` runs inside the same transaction, before it commits
 * (e.g. dropping the read models, whose checkpoints held the old ids). Appends wait meanwhile.
 */
export async function rebaseEventStore(
  pool: pg.Pool,
  options: { alsoInTransaction?: (sql: pg.PoolClient) => Promise<void> } = {},
): Promise<{ events: number; transactions: number; before: StorePositions }> {
  const before = await checkStorePositions(pool);
  const client = await pool.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      if (attempt > 5) throw new Error('Appends kept arriving while rebasing: stop the product first');
      const { transactions } = await checkStorePositions(client);
      const next = BigInt(
        (await client.query('select pg_snapshot_xmax(pg_current_snapshot())::text as next')).rows[0].next,
      );
      const needed = FIRST_ID + BigInt(transactions) + HEADROOM;
      if (next < needed) await useUpTransactionIds(client, needed - next);

      await client.query('begin');
      try {
        // The renumbered positions appear at commit: readers of `$all` wait for it as for an append.
        await client.query('select es.announce_append()');
        await client.query('lock table es.events in exclusive mode');
        const locked = await checkStorePositions(client);
        // This transaction's own id: every new id must sort below it.
        const own = BigInt((await client.query('select pg_current_xact_id()::text as own')).rows[0].own);
        if (FIRST_ID + BigInt(locked.transactions) >= own) {
          // Appends came in between (the product is running?): make room again.
          await client.query('rollback');
          continue;
        }
        await client.query(
          `with renumbered as (
             select transaction_id as old_id,
                    ((dense_rank() over (order by transaction_id)) + $1::bigint - 1)::text::xid8 as new_id
               from (select distinct transaction_id from es.events) ids
           )
           update es.events e set transaction_id = r.new_id
             from renumbered r
            where e.transaction_id = r.old_id and e.transaction_id <> r.new_id`,
          [FIRST_ID.toString()],
        );
        await options.alsoInTransaction?.(client);
        await client.query('commit');
        return { events: locked.events, transactions: locked.transactions, before };
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      }
    }
  } finally {
    client.release();
  }
}

/** Hands out and commits `count` transaction ids, so the cluster's next id moves past them. */
async function useUpTransactionIds(client: pg.PoolClient, count: bigint) {
  const n = Number(count);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`Cannot use up ${count} transaction ids`);
  await client.query(`do $$ begin for i in 1..${n} loop perform pg_current_xact_id(); commit; end loop; end $$`);
}
