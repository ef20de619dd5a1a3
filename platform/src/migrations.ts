import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/**
 * One numbered step of a schema's history (docs/migrations.md): a `NNN_name.sql` file, or a step
 * in code (a data migration) that must be safe to run again if its process dies before it is recorded.
 */
export type Migration = {
  name: string;
  up: (client: pg.ClientBase) => Promise<unknown>;
  /** A file's path, named when it fails. */
  path?: string;
  /** A file's sha256 (line endings made `\n`), recorded with it: a file edited after it was applied is refused. */
  checksum?: string;
};

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
      const checksum = createHash('sha256').update(sql.replaceAll('\r\n', '\n')).digest('hex');
      return {
        name,
        sql,
        path: fileURLToPath(new URL(path, folder)),
        checksum,
        up: (c: pg.ClientBase) => c.query(sql),
      };
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
  options: { log?: (line: string) => void } = {},
): Promise<T> {
  const client = isPool(db) ? await db.connect() : db;
  let broken: Error | undefined;
  try {
    const taken = await client.query<{ taken: boolean }>('select pg_try_advisory_lock($1) as taken', [MIGRATIONS_LOCK]);
    if (!taken.rows[0]?.taken) {
      // Another start is applying migrations: said once, so a start that waits does not look hung.
      const holder = await client.query<{ who: string }>(
        `select format('pid %s (%s)', l.pid, coalesce(nullif(a.application_name, ''), 'no application name')) as who
           from pg_locks l left join pg_stat_activity a on a.pid = l.pid
          where l.locktype = 'advisory' and l.granted and l.objid = $1 and l.database =
                (select oid from pg_database where datname = current_database())`,
        [MIGRATIONS_LOCK],
      );
      (options.log ?? defaultLog)(
        `Migrations: waiting for another start to finish applying them (it holds the migrations lock: ${holder.rows.map((r) => r.who).join(', ') || 'ended meanwhile'}).`,
      );
      await client.query('select pg_advisory_lock($1)', [MIGRATIONS_LOCK]);
    }
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

/** How a migration waits for the locks it needs (docs/migrations.md, "Waiting for locks"). */
export type MigrateOptions = {
  /** Where the waits are told (default: standard error). */
  log?: (line: string) => void;
  /** One attempt's wait for a lock (`lock_timeout`), after which the migration is rolled back and tried again. */
  lockTimeoutMs?: number;
  /** When the attempts stop and the start fails, naming the migration and who held the lock. */
  giveUpAfterMs?: number;
};

const defaultLog = (line: string) => console.warn(line);
/**
 * A migration waiting for a table's lock makes every query on that table queue behind it: it waits a
 * few seconds at a time, letting them through in between, and gives up, clearly, after some minutes.
 */
const LOCK_TIMEOUT_MS = 5_000;
const GIVE_UP_AFTER_MS = 300_000;

/** Sessions of this database, other than ours, inside a transaction: who may hold the lock a migration waited for. */
async function transactionsRunning(client: pg.ClientBase) {
  const { rows } = await client.query<{ who: string }>(
    `select format('pid %s (%s, in a transaction since %s: %s)', pid,
              coalesce(nullif(application_name, ''), 'no application name'),
              to_char(xact_start at time zone 'UTC', 'HH24:MI:SS "UTC"'), left(regexp_replace(query, '\\s+', ' ', 'g'), 80)) as who
       from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null
      order by xact_start`,
  );
  return rows.map((row) => row.who).join('; ') || 'none now';
}

/**
 * Applies the set's migrations that this database has not recorded, in order, each in its own
 * transaction with its record; answers their names. Refuses, before applying anything, a recorded
 * migration whose file was edited since, or that has no file any more (renamed or removed, or
 * applied by a newer release). The caller holds the migrations lock.
 */
export async function applyPending(
  client: pg.ClientBase,
  set: MigrationSet,
  options: MigrateOptions = {},
): Promise<string[]> {
  const ready = await client.query<{ ready: boolean }>(
    `select exists (select 1 from pg_attribute where attrelid = to_regclass('migrations.applied')
                      and attname = 'checksum' and not attisdropped) as ready`,
  );
  if (!ready.rows[0]?.ready) await client.query(MIGRATIONS_TABLE);
  const recorded = await client.query<{ name: string; checksum: string | null }>(
    'select name, checksum from migrations.applied where owner = $1 order by name',
    [set.owner],
  );
  const known = new Map(set.migrations.map((m) => [m.name, m]));
  for (const { name, checksum } of recorded.rows) {
    const migration = known.get(name);
    if (!migration) {
      throw new Error(
        `Migration ${set.owner}/${name} is recorded as applied to this database, but there is no such migration: ` +
          'a file renamed or removed after it was applied, or a database migrated by a newer release. ' +
          'Put the file back under its name (docs/migrations.md); nothing was applied.',
      );
    }
    if (!migration.checksum) continue;
    // Recorded before checksums were: this file's is taken as the one applied.
    if (checksum === null) {
      await client.query('update migrations.applied set checksum = $3 where owner = $1 and name = $2', [
        set.owner,
        name,
        migration.checksum,
      ]);
    } else if (checksum !== migration.checksum) {
      throw new Error(
        `Migration ${migration.path ?? `${set.owner}/${name}`} was edited after it was applied to this database ` +
          '(its sha256 differs from the one recorded): put it back as it was and add the change as the next ' +
          'numbered migration (docs/migrations.md); nothing was applied.',
      );
    }
  }
  const lockTimeoutMs = options.lockTimeoutMs ?? LOCK_TIMEOUT_MS;
  const giveUpAt = Date.now() + (options.giveUpAfterMs ?? GIVE_UP_AFTER_MS);
  const applied: string[] = [];
  for (const migration of [...set.migrations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (recorded.rows.some((row) => row.name === migration.name)) continue;
    const label = migration.path ?? `${set.owner}/${migration.name}`;
    for (let attempt = 1; ; attempt++) {
      await client.query('begin');
      try {
        await client.query(`set local lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
        await migration.up(client);
        await client.query('insert into migrations.applied (owner, name, checksum) values ($1, $2, $3)', [
          set.owner,
          migration.name,
          migration.checksum ?? null,
        ]);
        await client.query('commit');
        break;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        const code = (error as { code?: string }).code;
        const message = error instanceof Error ? error.message : String(error);
        if (code === '55P03') {
          // lock_not_available: another transaction holds a lock this migration needs.
          const holders = await transactionsRunning(client).catch(() => 'unknown');
          if (Date.now() < giveUpAt) {
            (options.log ?? defaultLog)(
              `Migration ${label} waits for a lock another transaction holds (attempt ${attempt}; transactions running: ${holders}); trying again.`,
            );
            continue;
          }
          throw new Error(
            `Migration ${label} could not take the locks it needs: other transactions kept them (${holders}). ` +
              'Nothing of it was applied; end those transactions, then start again.',
            { cause: error },
          );
        }
        const position = (error as { position?: string }).position;
        const sql = (migration as { sql?: string }).sql;
        const line = position && sql ? `, line ${sql.slice(0, Number(position) - 1).split('\n').length}` : '';
        throw new Error(
          `Migration ${label} failed${line}: ${message}. Nothing of it was applied or recorded; ` +
            'the next start tries it again.',
          { cause: error },
        );
      }
    }
    applied.push(migration.name);
  }
  return applied;
}

/** Applies each set's pending migrations, the sets in the order given, under the lock; answers `owner/name` of each applied. */
export function migrate(db: pg.Pool | pg.ClientBase, ...sets: MigrationSet[]): Promise<string[]> {
  return migrateWith(db, {}, ...sets);
}

/** `migrate`, told where to log its waits and how long to wait for locks. */
export function migrateWith(db: pg.Pool | pg.ClientBase, options: MigrateOptions, ...sets: MigrationSet[]) {
  return withMigrationLock(
    db,
    async (client) => {
      const applied: string[] = [];
      for (const set of sets) {
        applied.push(...(await applyPending(client, set, options)).map((name) => `${set.owner}/${name}`));
      }
      return applied;
    },
    options,
  );
}
