import { checkStorePositions, migrateEventStore, rebaseEventStore } from '@agency/platform';
import type pg from 'pg';

/**
 * Schemas built from `$all` positions: the live read models, and a rebuild's unfinished or
 * retired copies. Their checkpoints hold old transaction ids, so a rebase drops them all and the
 * next start rebuilds the read models from the renumbered events.
 */
const READ_MODEL_SCHEMAS = `
  select nspname from pg_namespace
   where nspname = 'read' or nspname like 'read\\_build\\_%' or nspname like 'read\\_retired\\_%'`;

export type RebaseOutcome =
  | { rebased: false; reason: 'positions already valid' }
  | { rebased: true; events: number; transactions: number; newest: bigint | null; next: bigint; dropped: string[] };

/**
 * Makes a restored or moved store's positions valid in this cluster: renumbers its events'
 * transaction ids below the cluster's and drops the read models in the same transaction.
 * A store that is already valid is left alone unless `force` (the product must be stopped).
 */
export async function rebaseStore(pool: pg.Pool, options: { force?: boolean } = {}): Promise<RebaseOutcome> {
  await migrateEventStore(pool);
  const positions = await checkStorePositions(pool);
  if (positions.valid && !options.force) return { rebased: false, reason: 'positions already valid' };
  const dropped: string[] = [];
  const { events, transactions } = await rebaseEventStore(pool, {
    alsoInTransaction: async (sql) => {
      dropped.push(...(await dropReadModels(sql)));
    },
  });
  return { rebased: true, events, transactions, newest: positions.newest, next: positions.next, dropped };
}

/** Drops the read models (live, and a rebuild's copies): the next start rebuilds them. Answers the schemas dropped. */
export async function dropReadModels(sql: Pick<pg.PoolClient, 'query'>): Promise<string[]> {
  const dropped: string[] = [];
  for (const { nspname } of (await sql.query<{ nspname: string }>(READ_MODEL_SCHEMAS)).rows) {
    await sql.query(`drop schema "${nspname.replaceAll('"', '""')}" cascade`);
    dropped.push(nspname);
  }
  return dropped;
}
