import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/**
 * One numbered step of a schema's history (docs/migrations.md): a `NNN_name.sql` file, or a step
 * in code (a data migration) that must be safe to run again if its process dies before it is recorded.
 */
export type Migration = { name: string; up: (client: pg.ClientBase) => Promise<unknown> };

/** The migrations of one owner (a folder of SQL files, or a list of steps), applied in name order. */
export type MigrationSet = { owner: string; migrations: Migration[] };

const NUMBERED = /^\d{3}_[a-z0-9_]+\.sql$/;

/**
 * The `NNN_name.sql` files of `folder` (and its subfolders with `recursive`), in one order by file
 * name, so neither the folder a file sits in nor the file system decides it. Paths are resolved
 * from the caller's `import.meta.url`, so they are found under tsx and in tests alike.
 */
export function sqlMigrations(folder: URL, options: { recursive?: boolean } = {}) {
  const root = fileURLToPath(folder);
  const found = readdirSync(root, { recursive: options.recursive ?? false, encoding: 'utf8' })
    .filter((path) => path.endsWith('.sql'))
    .map((path) => {
      const name = basename(path);
      if (!NUMBERED.test(name)) throw new Error(`A migration's file name must be NNN_words.sql, not ${path}`);
      const sql = readFileSync(new URL(path, folder), 'utf8');
      return { name, sql, up: (client: pg.ClientBase) => client.query(sql) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const duplicate = found.find((m, i) => i > 0 && found[i - 1]?.name === m.name);
  if (duplicate) throw new Error(`Two migrations under ${root} are named ${duplicate.name}`);
  return found;
}

/** The owner's migrations: every numbered SQL file of its folder. */
export function migrationSet(owner: string, folder: URL): MigrationSet {
  return { owner, migrations: sqlMigrations(folder) };
}

const folder = (owner: string) => new URL(`./migrations/${owner}/`, import.meta.url);

/** The event store's tables and functions (PostgreSQL adapter). */
export const EVENT_STORE_MIGRATIONS = migrationSet('event-store', folder('event-store'));
/** The data subjects' keys (personal-data/vault.ts). */
export const PERSONAL_DATA_MIGRATIONS = migrationSet('personal-data', folder('personal-data'));
/** The server-side sessions both services check (sessions.ts). */
export const SESSIONS_MIGRATIONS = migrationSet('sessions', folder('sessions'));

const MIGRATIONS_TABLE = readFileSync(new URL('./migrations/migrations-table.sql', import.meta.url), 'utf8');

/**
 * Held while migrations are applied, so instances starting at once apply each one once. The key
 * the event store's DDL was run under before there were numbered migrations: a start of that
 * older code beside this one waits too.
 */
export const MIGRATIONS_LOCK = 7412001;

const isPool = (db: pg.Pool | pg.ClientBase): db is pg.Pool => 'totalCount' in db;

/** Runs `work` on one connection holding the migrations lock (a session lock, so `work` may commit). */
export async function withMigrationLock<T>(
  db: pg.Pool | pg.ClientBase,
  work: (client: pg.ClientBase) => Promise<T>,
): Promise<T> {
  const client = isPool(db) ? await db.connect() : db;
  let broken: Error | undefined;
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATIONS_LOCK]);
    try {
      return await work(client);
    } finally {
      // A connection that cannot unlock has lost its session, and the lock with it: the work's own
      // error is the one to tell, and a pooled connection is dropped rather than reused.
      await client.query('select pg_advisory_unlock($1)', [MIGRATIONS_LOCK]).catch((error: Error) => {
        broken = error;
      });
    }
  } finally {
    if (isPool(db)) (client as pg.PoolClient).release(broken);
  }
}

/**
 * Applies the set's migrations that this database has not recorded, in order, each in its own
 * transaction with its record; answers their names. The caller holds the migrations lock.
 */
export async function applyPending(client: pg.ClientBase, set: MigrationSet): Promise<string[]> {
  const ready = await client.query<{ ready: boolean }>("select to_regclass('migrations.applied') is not null as ready");
  if (!ready.rows[0]?.ready) await client.query(MIGRATIONS_TABLE);
  const recorded = await client.query<{ name: string }>('select name from migrations.applied where owner = $1', [
    set.owner,
  ]);
  const done = new Set(recorded.rows.map((row) => row.name));
  const applied: string[] = [];
  for (const migration of [...set.migrations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (done.has(migration.name)) continue;
    await client.query('begin');
    try {
      await migration.up(client);
      await client.query('insert into migrations.applied (owner, name) values ($1, $2)', [set.owner, migration.name]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw new Error(
        `Migration ${set.owner}/${migration.name} failed: ${error instanceof Error ? error.message : error}`,
        {
          cause: error,
        },
      );
    }
    applied.push(migration.name);
  }
  return applied;
}

/** Applies each set's pending migrations, the sets in the order given, under the lock; answers `owner/name` of each applied. */
export function migrate(db: pg.Pool | pg.ClientBase, ...sets: MigrationSet[]): Promise<string[]> {
  return withMigrationLock(db, async (client) => {
    const applied: string[] = [];
    for (const set of sets) applied.push(...(await applyPending(client, set)).map((name) => `${set.owner}/${name}`));
    return applied;
  });
}
