import { randomBytes } from 'node:crypto';
import { comparePositions, type EventStore, type Position, START } from '@agency/platform';
import type pg from 'pg';
import { ADVISORY_LOCKS } from '../advisory-locks';
import {
  type AppliedFailure,
  applyEvents,
  CATCH_UP_BATCH,
  catchUpStep,
  inTransaction,
  LIVE_SCHEMA,
  loadScratch,
  minPosition,
  notifyCheckpoint,
  type ProjectionFailure,
  type ProjectionStatus,
  quoteIdent,
  readStatuses,
  type StoreTable,
  WRITER_LOCK,
} from '../projection-runner';
import { migrations, RUNNER_MIGRATION, readModelVersion } from './migrations';
import type { Projection } from './projection';

/** Held for a whole rebuild, so two instances (or a start and `npm run rebuild`) never build at once. */
const REBUILD_LOCK = ADVISORY_LOCKS.rebuild;

const buildSchemaName = (what: string) => `read_build_${what}_${Date.now()}_${randomBytes(3).toString('hex')}`;

async function createSchema(pool: pg.Pool, schema: string, projections: Projection[], fingerprint?: string) {
  const wanted = new Set([RUNNER_MIGRATION, ...projections.flatMap((p) => p.migrations ?? [])]);
  await inTransaction(pool, async (sql) => {
    await sql.query(`create schema ${quoteIdent(schema)}`);
    await sql.query(`set local search_path to ${quoteIdent(schema)}`);
    for (const migration of migrations) {
      if (fingerprint || wanted.has(migration.name)) await sql.query(migration.sql);
    }
    // Its table is FINGERPRINT_MIGRATION's, applied with every other in a full build.
    if (fingerprint) await sql.query('insert into read_model_info values ($1)', [fingerprint]);
    for (const projection of projections) {
      await sql.query('insert into projection_checkpoints (name, version, handles) values ($1, $2, $3)', [
        projection.name,
        projection.version,
        Object.keys(projection.handlers).sort(),
      ]);
    }
  });
}

export async function liveReadModelIsCurrent(pool: pg.Pool | pg.ClientBase, projections: Projection[]) {
  const exists = await pool.query('select 1 from pg_namespace where nspname = $1', [LIVE_SCHEMA]);
  if (exists.rowCount === 0) return false;
  const info = await pool.query(`select version from ${LIVE_SCHEMA}.read_model_info`).catch(() => ({ rows: [] }));
  return info.rows[0]?.version === readModelVersion(projections);
}

/**
 * Every schema a build under the rebuild lock made (`buildSchemaName`: a rebuild's scratch, the
 * retired live one) that is still there when the lock is taken: its maker died before dropping it
 * (a killed `npm run rebuild` left a copy of the read models behind). Not `verify`'s, which is made
 * without this lock and may be in use now.
 */
async function dropLeftoverBuilds(client: pg.ClientBase) {
  const left = await client.query<{ name: string }>(
    `select nspname as name from pg_namespace
      where nspname like 'read\\_build\\_%' and nspname not like 'read\\_build\\_verify\\_%'`,
  );
  for (const { name } of left.rows) await client.query(`drop schema if exists ${quoteIdent(name)} cascade`);
}

async function withRebuildLock<T>(pool: pg.Pool, work: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [REBUILD_LOCK]);
    try {
      await dropLeftoverBuilds(client);
      return await work();
    } finally {
      await client.query('select pg_advisory_unlock($1)', [REBUILD_LOCK]);
    }
  } finally {
    client.release();
  }
}

export type RebuildProgress = (applied: number) => void;
export type RebuildHooks = {
  /** Called inside the swap's transaction, after its last catch-up and just before the rename (tests). */
  beforeSwap?: (sql: pg.ClientBase) => Promise<void>;
  /**
   * The store is the PostgreSQL one of this database, read through this: the load then reads its
   * table (projection-runner.ts, `loadScratch`), the lessons applied by the database itself.
   */
  storeTable?: StoreTable;
};
export type RebuildResult = { applied: number; failures: AppliedFailure[] };

/**
 * Catches the build schema up to the head of `$all` inside the swap's transaction, which took
 * the writer lock as its first statement: no live batch can commit between this last read and
 * the swap, so none lands in the schema being retired.
 */
async function finalCatchUp(
  sql: pg.ClientBase,
  store: EventStore,
  schema: string,
  projections: Projection[],
  result: RebuildResult,
  onProgress: RebuildProgress,
) {
  await sql.query('select pg_advisory_xact_lock($1)', [WRITER_LOCK]);
  for (;;) {
    const step = await catchUpStep(sql, store, schema, projections, { follow: true });
    result.failures.push(...step.failures);
    if (step.read === 0) break;
    result.applied += step.read;
    onProgress(result.applied);
  }
}

/**
 * The secondary (non-unique) indexes of the projections' `bulkTables` in a new scratch schema,
 * dropped before it is loaded and made again (`createIndexes`) once it is: one sort each, instead
 * of an index insertion per row (a million lessons). Unique indexes stay: the projections' upserts
 * need them. The other tables keep theirs: a handler that looks rows up by one (accounting rows
 * by document, say) would otherwise scan the whole table for every event.
 */
async function dropSecondaryIndexes(pool: pg.Pool, schema: string, projections: Projection[]): Promise<string[]> {
  const found = await pool.query<{ name: string; definition: string }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
       from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and not i.indisunique and c.relname = any($2::text[])`,
    [schema, projections.flatMap((projection) => projection.bulkTables ?? [])],
  );
  for (const { name } of found.rows) await pool.query(`drop index ${name}`);
  return found.rows.map(({ definition }) => definition);
}

/**
 * Fresh tables have no planner statistics until autovacuum comes by: without them the first
 * queries on a million rows pick their plans blind. Gathered before the swap, not under its lock.
 */
async function analyzeTables(pool: pg.Pool, schema: string) {
  const tables = await pool.query('select tablename from pg_tables where schemaname = $1', [schema]);
  for (const { tablename } of tables.rows) await pool.query(`analyze ${quoteIdent(schema)}.${quoteIdent(tablename)}`);
}

async function createIndexes(pool: pg.Pool, definitions: string[]) {
  const sql = await pool.connect();
  try {
    await sql.query("set maintenance_work_mem = '256MB'");
    for (const definition of definitions) await sql.query(definition);
  } finally {
    sql.release(true);
  }
}

/**
 * Builds every read model from position 0 into a new schema of the given kind; `finish` catches it
 * up to the head inside the caller's transaction (which holds the writer lock), so nothing the
 * live runner applies meanwhile is missed.
 */
async function buildScratch(
  pool: pg.Pool,
  store: EventStore,
  projections: Projection[],
  kind: string,
  onProgress: RebuildProgress,
  storeTable: StoreTable | undefined,
) {
  const schema = buildSchemaName(kind);
  await createSchema(pool, schema, projections, readModelVersion(projections));
  const result: RebuildResult = { applied: 0, failures: [] };
  try {
    const secondary = await dropSecondaryIndexes(pool, schema, projections);
    result.applied = await loadScratch(pool, store, schema, projections, {
      onProgress,
      onFailure: (failure) => result.failures.push(failure),
      storeTable,
    });
    // Side by side: statistics need no index (none is on an expression), and take no lock an index build waits for.
    await Promise.all([createIndexes(pool, secondary), analyzeTables(pool, schema)]);
  } catch (error) {
    await pool.query(`drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => {});
    throw error;
  }
  const finish = (sql: pg.ClientBase) => finalCatchUp(sql, store, schema, projections, result, onProgress);
  return { schema, result, finish };
}

async function buildAndSwap(
  pool: pg.Pool,
  store: EventStore,
  projections: Projection[],
  onProgress: RebuildProgress,
  hooks: RebuildHooks,
): Promise<RebuildResult> {
  const { schema, result, finish } = await buildScratch(pool, store, projections, 'all', onProgress, hooks.storeTable);
  try {
    const retired = buildSchemaName('retired');
    await inTransaction(pool, async (sql) => {
      await finish(sql);
      await hooks.beforeSwap?.(sql);
      const live = await sql.query('select 1 from pg_namespace where nspname = $1', [LIVE_SCHEMA]);
      if (live.rowCount) await sql.query(`alter schema ${LIVE_SCHEMA} rename to ${quoteIdent(retired)}`);
      await sql.query(`alter schema ${quoteIdent(schema)} rename to ${LIVE_SCHEMA}`);
      await notifyCheckpoint(sql, LIVE_SCHEMA);
    });
    await pool.query(`drop schema if exists ${quoteIdent(retired)} cascade`);
    return result;
  } catch (error) {
    await pool.query(`drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => {});
    throw error;
  }
}

/**
 * Builds every read model from position 0 into a fresh schema while the live one keeps serving,
 * then catches up the last events and swaps the schemas in one transaction. A projection that
 * cannot apply an event stops there (recorded, retried by the runner); the others are built whole.
 */
export function rebuildReadModels(
  pool: pg.Pool,
  store: EventStore,
  projections: Projection[],
  onProgress: RebuildProgress = () => {},
  hooks: RebuildHooks = {},
): Promise<RebuildResult> {
  return withRebuildLock(pool, () => buildAndSwap(pool, store, projections, onProgress, hooks));
}

/**
 * Rebuilds one projection's tables from position 0 beside the live ones (in a scratch schema),
 * then, under the writer lock, catches up, replaces its live tables with the new ones and resets
 * its checkpoint and failure. The other projections keep moving throughout.
 */
export function rebuildProjection(
  pool: pg.Pool,
  store: EventStore,
  projections: Projection[],
  name: string,
  onProgress: RebuildProgress = () => {},
  hooks: RebuildHooks = {},
): Promise<RebuildResult> {
  const projection = projections.find((p) => p.name === name);
  if (!projection) {
    const known = projections.map((p) => p.name).join(', ');
    return Promise.reject(new Error(`There is no projection named "${name}" (known: ${known}).`));
  }
  return withRebuildLock(pool, async () => {
    if (!(await liveReadModelIsCurrent(pool, projections))) {
      throw new Error('The live read model is missing or outdated: run `npm run rebuild` (every projection) instead.');
    }
    const schema = buildSchemaName(name);
    await createSchema(pool, schema, [projection]);
    const result: RebuildResult = { applied: 0, failures: [] };
    try {
      result.applied = await loadScratch(pool, store, schema, [projection], {
        onProgress,
        onFailure: (failure) => result.failures.push(failure),
        storeTable: hooks.storeTable,
      });
      await inTransaction(pool, async (sql) => {
        await finalCatchUp(sql, store, schema, [projection], result, onProgress);
        await hooks.beforeSwap?.(sql);
        const tables = await sql.query(
          "select tablename from pg_tables where schemaname = $1 and tablename <> 'projection_checkpoints'",
          [schema],
        );
        for (const { tablename } of tables.rows) {
          await sql.query(`drop table if exists ${LIVE_SCHEMA}.${quoteIdent(tablename)} cascade`);
          await sql.query(`alter table ${quoteIdent(schema)}.${quoteIdent(tablename)} set schema ${LIVE_SCHEMA}`);
        }
        await sql.query(
          `insert into ${LIVE_SCHEMA}.projection_checkpoints
           select * from ${quoteIdent(schema)}.projection_checkpoints where name = $1
           on conflict (name) do update set version = excluded.version, handles = excluded.handles,
             commit_position = excluded.commit_position, prepare_position = excluded.prepare_position,
             following = excluded.following, failed_at = excluded.failed_at, failure = excluded.failure,
             attempts = excluded.attempts, retry_at = excluded.retry_at`,
          [name],
        );
        await notifyCheckpoint(sql, LIVE_SCHEMA);
      });
      return result;
    } finally {
      await pool.query(`drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => {});
    }
  });
}

/**
 * At start-up: a missing or outdated read model is rebuilt before queries are served. Several
 * instances may start at once: the rebuild lock lets one build, and the others find it current.
 */
export async function ensureReadModels(
  pool: pg.Pool,
  store: EventStore,
  projections: Projection[],
  onProgress: RebuildProgress = () => {},
) {
  if (await liveReadModelIsCurrent(pool, projections)) return { rebuilt: false };
  return withRebuildLock(pool, async () => {
    if (await liveReadModelIsCurrent(pool, projections)) return { rebuilt: false };
    await buildAndSwap(pool, store, projections, onProgress, {});
    return { rebuilt: true };
  });
}

/**
 * A read-model table whose live rows differ from a rebuild's: how many rows each side has that the
 * other lacks, and one such row of each side (as JSON) to show what differs.
 */
export type ReadModelDifference = {
  table: string;
  onlyLive: number;
  onlyRebuilt: number;
  liveRow?: string;
  rebuiltRow?: string;
};

/** Where each live projection was when the comparison was pinned, and the failure it is stopped at, if any. */
export type PinnedProjection = { name: string; position: Position; failure: ProjectionFailure | null };

export type CompareHooks = {
  /**
   * Runs in the comparison's snapshot (a read-only transaction that sees the live read models as
   * they were at `pinned`, search path `read`), after the tables were compared: checks of the
   * live rows against the events up to those positions.
   */
  inSnapshot?: (sql: pg.ClientBase, pinned: Map<string, PinnedProjection>) => Promise<void>;
  /** Called in the snapshot before the first table is compared (tests: the live runner moves meanwhile). */
  beforeCompare?: () => Promise<void>;
};

async function liveProjections(sql: pg.ClientBase | pg.Pool): Promise<Map<string, PinnedProjection>> {
  const statuses = await readStatuses(sql, LIVE_SCHEMA);
  return new Map(
    [...statuses.values()].map(({ name, position, failure }) => [name, { name, position, failure }] as const),
  );
}

/**
 * Applies events to each projection of the scratch `schema` up to its own bound (a live
 * projection's checkpoint) and no further. No writer lock: nobody else writes a scratch schema.
 */
async function catchUpTo(
  pool: pg.Pool,
  store: EventStore,
  schema: string,
  projections: Projection[],
  bounds: Map<string, PinnedProjection>,
  result: RebuildResult,
  onProgress: RebuildProgress,
) {
  for (;;) {
    const read = await inTransaction(pool, async (sql) => {
      await sql.query(`set local search_path to ${quoteIdent(schema)}`);
      await sql.query('set local synchronous_commit = off');
      const statuses = await readStatuses(sql, schema, true);
      const behind = projections.filter((projection) => {
        const status = statuses.get(projection.name);
        const bound = bounds.get(projection.name)?.position ?? START;
        return status && !status.failure && comparePositions(status.position, bound) < 0;
      });
      if (behind.length === 0) return 0;
      const from = minPosition(
        behind.map((projection) => (statuses.get(projection.name) as ProjectionStatus).position),
      );
      const events = await store.readAll({ from, limit: CATCH_UP_BATCH });
      for (const projection of behind) {
        const bound = bounds.get(projection.name)?.position ?? START;
        const upToBound = events.filter((event) => comparePositions(event.position, bound) <= 0);
        result.failures.push(...(await applyEvents(sql, upToBound, [projection], statuses)));
      }
      return events.length;
    });
    // A bound no event reaches (a store that lost events) ends the catch-up rather than spinning.
    if (read === 0) return;
    result.applied += read;
    onProgress(result.applied);
  }
}

/** Rows of `from` that `other` lacks (as many times as they are missing): how many, and the first as text. */
async function rowsMissing(sql: pg.ClientBase, from: string, other: string) {
  const found = await sql.query<{ count: string; sample: string | null }>(
    `select count(*) as count, min(j::text) as sample
       from (select to_jsonb(a) j from ${from} a except all select to_jsonb(b) from ${other} b) d`,
  );
  const row = found.rows[0];
  return { count: Number(row?.count ?? 0), sample: row?.sample ?? undefined };
}

/**
 * Builds every read model from position 0 into a scratch schema and compares each table row by
 * row with the live one (rows as JSON, so column order does not matter); the scratch schema is
 * dropped. Both sides are compared at the same positions: each scratch projection is built up
 * to where its live projection is, never past it (the live ones only move on), and the last few
 * events are applied while the writer lock holds the live ones still, just long enough to open
 * a read-only snapshot. The comparisons then run in that snapshot with no lock held and no
 * transaction id, so live projections and commands carry on meanwhile (and the `$all` horizon
 * is not held back).
 */
export async function compareWithRebuild(
  pool: pg.Pool,
  store: EventStore,
  projections: Projection[],
  onProgress: RebuildProgress = () => {},
  hooks: CompareHooks = {},
): Promise<RebuildResult & { differences: ReadModelDifference[]; pinned: Map<string, PinnedProjection> }> {
  // No rebuild lock: the scratch schema's name is its own, and the leader may hold that lock for life.
  const schema = buildSchemaName('verify');
  await createSchema(pool, schema, projections, readModelVersion(projections));
  const result: RebuildResult = { applied: 0, failures: [] };
  try {
    // A store of more than a batch is loaded without the secondary indexes, made again after; a small
    // one (a test's) is quicker with them.
    const large = (await store.readAll({ limit: CATCH_UP_BATCH })).length === CATCH_UP_BATCH;
    const secondary = large ? await dropSecondaryIndexes(pool, schema, projections) : [];
    // Most of the way without any lock: the live projections only move on, so a bound read now is never passed.
    await catchUpTo(pool, store, schema, projections, await liveProjections(pool), result, onProgress);
    await createIndexes(pool, secondary);
    await catchUpTo(pool, store, schema, projections, await liveProjections(pool), result, onProgress);

    const lock = await pool.connect();
    const snapshot = await pool.connect();
    try {
      let pinned: Map<string, PinnedProjection>;
      // A session lock (not a transaction's): the scratch catch-up commits on another connection
      // and the snapshot opens on a third while the live projections stand still.
      await lock.query('select pg_advisory_lock($1)', [WRITER_LOCK]);
      try {
        pinned = await liveProjections(lock);
        await catchUpTo(pool, store, schema, projections, pinned, result, onProgress);
        await snapshot.query('begin isolation level repeatable read read only');
        await snapshot.query(`set local search_path to ${LIVE_SCHEMA}`);
        // The snapshot is taken by the first query, so here, under the lock.
        await snapshot.query('select 1 from projection_checkpoints limit 1');
      } finally {
        await lock.query('select pg_advisory_unlock($1)', [WRITER_LOCK]);
      }
      await hooks.beforeCompare?.();
      const tables = await snapshot.query<{ tablename: string }>(
        `select tablename from pg_tables where schemaname = $1
            and tablename not in ('projection_checkpoints', 'read_model_info') order by tablename`,
        [schema],
      );
      const differences: ReadModelDifference[] = [];
      for (const { tablename } of tables.rows) {
        const live = `${LIVE_SCHEMA}.${quoteIdent(tablename)}`;
        const rebuilt = `${quoteIdent(schema)}.${quoteIdent(tablename)}`;
        const onlyLive = await rowsMissing(snapshot, live, rebuilt);
        const onlyRebuilt = await rowsMissing(snapshot, rebuilt, live);
        if (onlyLive.count || onlyRebuilt.count)
          differences.push({
            table: tablename,
            onlyLive: onlyLive.count,
            onlyRebuilt: onlyRebuilt.count,
            liveRow: onlyLive.sample,
            rebuiltRow: onlyRebuilt.sample,
          });
      }
      await hooks.inSnapshot?.(snapshot, pinned);
      await snapshot.query('commit');
      return { ...result, differences, pinned };
    } catch (error) {
      await snapshot.query('rollback').catch(() => {});
      throw error;
    } finally {
      snapshot.release();
      lock.release();
    }
  } finally {
    await pool.query(`drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => {});
  }
}
