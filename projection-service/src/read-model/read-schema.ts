import type { EventStore } from '@agency/platform';
import type pg from 'pg';
import {
  applyEvents,
  handlersByType,
  inTransaction,
  LIVE_SCHEMA,
  quoteIdent,
  readCheckpoint,
} from '../projection-runner';
import type { Projection } from '../projections/projection';
import { migrations, readModelVersion } from './migrations';

async function createSchema(pool: pg.Pool, schema: string) {
  await inTransaction(pool, async (sql) => {
    await sql.query(`create schema ${quoteIdent(schema)}`);
    await sql.query(`set local search_path to ${quoteIdent(schema)}`);
    for (const migration of migrations) await sql.query(migration.sql);
    await sql.query('create table read_model_info (version text not null)');
    await sql.query('insert into read_model_info values ($1)', [readModelVersion]);
  });
}

export async function liveReadModelIsCurrent(pool: pg.Pool): Promise<boolean> {
  const exists = await pool.query("select 1 from pg_namespace where nspname = 'read'");
  if (exists.rowCount === 0) return false;
  const info = await pool.query('select version from read.read_model_info').catch(() => ({ rows: [] }));
  return info.rows[0]?.version === readModelVersion;
}

export type RebuildProgress = (applied: number) => void;

/**
 * Builds every read model from position 0 into a fresh schema while the live one keeps serving,
 * then catches up the last events and swaps the schemas in one transaction.
 */
export async function rebuildReadModels(
  pool: pg.Pool,
  store: EventStore,
  projections: Projection[],
  onProgress: RebuildProgress = () => {},
) {
  const handlers = handlersByType(projections);
  const schema = `read_build_${Date.now()}`;
  await createSchema(pool, schema);
  let applied = 0;
  for (;;) {
    const events = await store.readAll({ from: await readCheckpoint(pool, schema), limit: 1000 });
    if (events.length === 0) break;
    await inTransaction(pool, (sql) => applyEvents(sql, schema, events, handlers));
    applied += events.length;
    onProgress(applied);
  }
  const retired = `read_retired_${Date.now()}`;
  await inTransaction(pool, async (sql) => {
    for (;;) {
      const events = await store.readAll({ from: await readCheckpoint(sql, schema), limit: 1000 });
      if (events.length === 0) break;
      await applyEvents(sql, schema, events, handlers);
      applied += events.length;
      onProgress(applied);
    }
    const live = await sql.query('select 1 from pg_namespace where nspname = $1', [LIVE_SCHEMA]);
    if (live.rowCount) await sql.query(`alter schema ${LIVE_SCHEMA} rename to ${quoteIdent(retired)}`);
    await sql.query(`alter schema ${quoteIdent(schema)} rename to ${LIVE_SCHEMA}`);
  });
  await pool.query(`drop schema if exists ${quoteIdent(retired)} cascade`);
  return { applied };
}

/** At start-up: a missing or outdated read model is rebuilt before queries are served. */
export async function ensureReadModels(pool: pg.Pool, store: EventStore, projections: Projection[]) {
  if (await liveReadModelIsCurrent(pool)) return { rebuilt: false };
  await rebuildReadModels(pool, store, projections);
  return { rebuilt: true };
}
