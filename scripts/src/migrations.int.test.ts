import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_LOGIN_LIMITS } from '@agency/command-service';
import { COMMAND_MIGRATIONS, migrateCommandSide } from '@agency/command-service/schema';
import { migrateEventStore } from '@agency/platform';
import {
  EVENT_STORE_MIGRATIONS,
  type MigrationSet,
  migrate,
  migrateWith,
  migrationSet,
  PERSONAL_DATA_MIGRATIONS,
  SESSIONS_MIGRATIONS,
} from '@agency/platform/migrations';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startProduct } from './product';
import { createTestDatabase, endPool } from './testing/test-database';
import { TEST_ADMIN, testProductConfig } from './testing/test-product';

const ADMIN = TEST_ADMIN;

/** What every schema start of the product applies, by owner (the command side's data migrations aside). */
const SCHEMA_SETS: MigrationSet[] = [
  EVENT_STORE_MIGRATIONS,
  PERSONAL_DATA_MIGRATIONS,
  SESSIONS_MIGRATIONS,
  COMMAND_MIGRATIONS,
];
const everySchemaMigration = SCHEMA_SETS.flatMap((set) => set.migrations.map((m) => `${set.owner}/${m.name}`)).sort();

/** The product as `npm start` runs it, on `databaseUrl`. */
function start(databaseUrl: string, dataDir: string) {
  return startProduct(testProductConfig(databaseUrl, dataDir), {
    log: () => {},
    logLevel: 'silent',
    loginLimits: { ...DEFAULT_LOGIN_LIMITS, freePerAddress: 1000 },
  });
}

/** The migrations recorded, as `owner/name`, with when each was applied. */
async function recorded(db: pg.Pool) {
  const rows = await db.query<{ migration: string; at: Date }>(
    "select owner || '/' || name as migration, applied_at as at from migrations.applied order by 1",
  );
  return rows.rows;
}

/** Appends one event through the store's own append function (the old one, before the start). */
async function appendProbe(db: pg.Pool, expected: number, label: string) {
  const metadata = { userId: 'test', role: 'admin', commandId: randomUUID(), correlationId: 't', causationId: 't' };
  await db.query(
    `select * from es.append_to_stream('migration-probe', $1, array[$2::uuid], array['MigrationProbeRecorded'],
       array[$3::jsonb], array[$4::jsonb])`,
    [expected, randomUUID(), JSON.stringify({ label }), JSON.stringify(metadata)],
  );
}

describe('numbered migrations (docs/migrations.md)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-migrations-'));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a store made by the code before them starts on this code with its data, and a second start applies nothing', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const db = new pg.Pool({ connectionString: database.url });
    cleanups.push(() => endPool(db));
    // The store as that code left it: its DDL (kept as it was), then rows in its tables.
    await db.query(
      readFileSync(new URL('./testing/fixtures/schema-before-numbered-migrations.sql', import.meta.url), 'utf8'),
    );
    await appendProbe(db, -1, 'before');
    await db.query(`insert into invoice.reference_counters values ('tutor-1', 41);
      insert into command.tutor_names values ('username', 'ann', 'tutor-1'), ('prefix', 'AN', 'tutor-1');
      insert into command.usernames (name, tutor_id) values ('ann', 'tutor-1');
      insert into command.processed_commands (command_id, user_id, status_code) values ('c-1', 'u-1', 200);
      insert into auth.sessions (id, user_id) values ('s-1', 'u-1');
      insert into pii.subject_keys (subject_id, key_id, key, shredded_at) values ('family-1', 'k-1', null, now());
      insert into command.migrations (name, done_at) values ('tutor-rosters', '2025-01-02T03:04:05Z')`);
    const before = {
      counters: (await db.query('select * from invoice.reference_counters')).rows,
      names: (await db.query('select * from command.tutor_names order by kind')).rows,
      usernames: (await db.query('select * from command.usernames')).rows,
      answers: (await db.query('select command_id, user_id, status_code from command.processed_commands')).rows,
      keys: (await db.query('select subject_id, key_id, shredded_at from pii.subject_keys')).rows,
    };

    const first = await start(database.url, dataDir);
    try {
      // It serves: the admin made at this first start signs in.
      const signIn = await fetch(`${first.url}/auth/local`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });
      expect(signIn.status).toBe(200);
    } finally {
      await first.stop();
    }
    // Every row is still there, as it was.
    expect((await db.query('select * from invoice.reference_counters')).rows).toEqual(before.counters);
    expect((await db.query('select * from command.tutor_names order by kind')).rows).toEqual(before.names);
    expect((await db.query("select * from command.usernames where name = 'ann'")).rows).toEqual(before.usernames);
    expect((await db.query('select command_id, user_id, status_code from command.processed_commands')).rows).toEqual(
      before.answers,
    );
    expect(
      (await db.query("select subject_id, key_id, shredded_at from pii.subject_keys where subject_id = 'family-1'"))
        .rows,
    ).toEqual(before.keys);
    expect((await db.query("select user_id from auth.sessions where id = 's-1'")).rows).toEqual([{ user_id: 'u-1' }]);
    // The event is there, and the store appends after it with this code's function.
    await appendProbe(db, 0, 'after');
    const probes = await db.query(
      "select stream_revision::int as revision, data->>'label' as label from es.events where stream_id = 'migration-probe' order by 1",
    );
    expect(probes.rows).toEqual([
      { revision: 0, label: 'before' },
      { revision: 1, label: 'after' },
    ]);
    // Each migration is recorded; the data migration that store had done counts as done (from its old record).
    const adopted = await recorded(db);
    expect(adopted.map((row) => row.migration)).toEqual(
      [...everySchemaMigration, 'command-data/001_tutor_rosters'].sort(),
    );
    expect(adopted.find((row) => row.migration === 'command-data/001_tutor_rosters')?.at).toEqual(
      new Date('2025-01-02T03:04:05Z'),
    );
    expect((await db.query("select to_regclass('command.migrations') as old")).rows[0].old).toBeNull();

    // A second start applies nothing: each migration's record is the first start's.
    const second = await start(database.url, dataDir);
    await second.stop();
    expect(await recorded(db)).toEqual(adopted);
  });

  it('instances starting at once apply each migration once, and a later start applies none', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: database.url, max: 2 }));
    for (const pool of pools) cleanups.push(() => endPool(pool));
    // Each instance's migrations in a start's order: the keys, the event store, the command side.
    const startOf = async (pool: pg.Pool) => [
      ...(await migrate(pool, PERSONAL_DATA_MIGRATIONS)),
      ...(await migrateEventStore(pool)).map((name) => `event-store/${name}`),
      ...(await migrateCommandSide(pool)),
    ];
    const [one, other] = await Promise.all(pools.map(startOf));
    expect([...(one ?? []), ...(other ?? [])].sort()).toEqual(everySchemaMigration);
    expect((await recorded(pools[0]!)).map((row) => row.migration)).toEqual(everySchemaMigration);
    expect(await startOf(pools[1]!)).toEqual([]);
  });

  /** A folder of migration files (name → SQL) of owner `probe`, and the set read from it now. */
  const probeFolder = (files: Record<string, string>) => {
    const root = mkdtempSync(join(tmpdir(), 'agency-probe-migrations-'));
    cleanups.push(async () => rmSync(root, { recursive: true, force: true }));
    for (const [name, sql] of Object.entries(files)) writeFileSync(join(root, name), sql);
    return { root, set: () => migrationSet('probe', pathToFileURL(`${root}/`)) };
  };
  const probeDatabase = async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const db = new pg.Pool({ connectionString: database.url, max: 4 });
    cleanups.push(() => endPool(db));
    return db;
  };
  const exists = async (db: pg.Pool, table: string) =>
    (await db.query('select to_regclass($1) is not null as ok', [table])).rows[0].ok as boolean;

  it('a migration failing half-way leaves nothing of it and no record, names its file and line, and is tried again by the next start, one start after another', async () => {
    const db = await probeDatabase();
    const { root, set } = probeFolder({
      '001_first.sql': 'create table public.first (id int);',
      '002_broken.sql': 'create table public.half (id int);\ninsert into public.half values (1);\nselect 1 / 0;\n',
    });
    // Two starts at once: the one that waits finds the failure not recorded and meets it too.
    const starts = await Promise.allSettled([migrate(db, set()), migrate(db, set())]);
    for (const start of starts) {
      expect(start.status).toBe('rejected');
      expect(String((start as PromiseRejectedResult).reason)).toMatch(
        `Migration ${join(root, '002_broken.sql')} failed: division by zero. Nothing of it was applied or recorded; the next start tries it again.`,
      );
    }
    expect(await exists(db, 'public.first')).toBe(true);
    expect(await exists(db, 'public.half')).toBe(false);
    expect((await recorded(db)).map((row) => row.migration)).toEqual(['probe/001_first.sql']);
    // A syntax error is told with its line.
    writeFileSync(
      join(root, '002_broken.sql'),
      'create table public.half (id int);\n\ncreat table public.other (id int);',
    );
    await expect(migrate(db, set())).rejects.toThrow(/002_broken\.sql failed, line 3: syntax error at or near "creat"/);
    // Mended before it ever applied (editing an unapplied file is allowed): the next start applies it.
    writeFileSync(join(root, '002_broken.sql'), 'create table public.half (id int);');
    expect(await migrate(db, set())).toEqual(['probe/002_broken.sql']);
    expect(await exists(db, 'public.half')).toBe(true);
  });

  it('a migration edited or renamed after it was applied stops the start with what to do, and applies nothing', async () => {
    const db = await probeDatabase();
    const first = 'create table public.first (\n  id int\n);\n';
    const { root, set } = probeFolder({ '001_first.sql': first });
    expect(await migrate(db, set())).toEqual(['probe/001_first.sql']);
    writeFileSync(join(root, '002_second.sql'), 'create table public.second (id int);');
    // Edited (a comment is an edit too: the file no longer says what was applied).
    writeFileSync(join(root, '001_first.sql'), `-- the first table\n${first}`);
    await expect(migrate(db, set())).rejects.toThrow(/001_first\.sql was edited after it was applied/);
    expect(await exists(db, 'public.second')).toBe(false);
    // Renamed: its record names a file there is not.
    rmSync(join(root, '001_first.sql'));
    writeFileSync(join(root, '001_first_table.sql'), first);
    await expect(migrate(db, set())).rejects.toThrow(
      /probe\/001_first\.sql is recorded as applied.*renamed or removed/,
    );
    expect(await exists(db, 'public.second')).toBe(false);
    // Put back, with other line endings (a checkout on another system), which are no edit.
    rmSync(join(root, '001_first_table.sql'));
    writeFileSync(join(root, '001_first.sql'), first.replaceAll('\n', '\r\n'));
    expect(await migrate(db, set())).toEqual(['probe/002_second.sql']);
    // A record made before checksums were kept takes the file's as the one applied.
    await db.query("update migrations.applied set checksum = null where owner = 'probe'");
    expect(await migrate(db, set())).toEqual([]);
    const unchecked = await db.query('select count(*)::int as n from migrations.applied where checksum is null');
    expect(unchecked.rows[0].n).toBe(0);
  });

  it('a migration that needs a lock a long transaction holds says so while it waits, goes on once it ends, and gives up clearly', async () => {
    const db = await probeDatabase();
    await db.query('create table public.busy (id int)');
    const { set } = probeFolder({ '001_alter_busy.sql': 'alter table public.busy add column note text;' });
    const long = await db.connect();
    try {
      await long.query("set application_name = 'long-report'");
      await long.query('begin');
      await long.query('select count(*) from public.busy');
      // Gives up: the wait is told, then the failure names the migration and who held on.
      const told: string[] = [];
      await expect(
        migrateWith(db, { log: (line) => told.push(line), lockTimeoutMs: 20, giveUpAfterMs: 0 }, set()),
      ).rejects.toThrow(/001_alter_busy\.sql could not take the locks it needs.*long-report/);
      expect((await recorded(db)).map((row) => row.migration)).toEqual([]);
      // Waits: the long transaction ends once the migration has said it is waiting, and it is applied.
      const applied = migrateWith(
        db,
        {
          lockTimeoutMs: 20,
          log: (line) => {
            told.push(line);
            if (told.length === 1) void long.query('commit');
          },
        },
        set(),
      );
      expect(await applied).toEqual(['probe/001_alter_busy.sql']);
      expect(told[0]).toMatch(/001_alter_busy\.sql waits for a lock another transaction holds.*long-report/);
    } finally {
      await long.query('rollback').catch(() => {});
      long.release();
    }
  });

  it('a start killed while it applies a migration leaves nothing of it, and the start waiting for it applies it', async () => {
    const db = await probeDatabase();
    const { set } = probeFolder({ '001_first.sql': 'create table public.first (id int);' });
    let killedPid = 0;
    let started!: () => void;
    const inside = new Promise<void>((resolve) => {
      started = resolve;
    });
    let abandon!: (error: Error) => void;
    const killed = migrate(db, {
      owner: 'probe',
      migrations: [
        {
          name: '001_first.sql',
          up: async (client) => {
            client.on('error', () => {}); // its session, ended by the server
            await client.query('create table public.first (id int)');
            killedPid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
            started();
            await new Promise((_, reject) => {
              abandon = reject;
            });
          },
        },
      ],
    });
    await inside;
    const told: string[] = [];
    const waiting = migrateWith(
      db,
      {
        log: (line) => {
          told.push(line);
          // The other start has said it waits: the first process dies (its session ends, as a kill ends it).
          void db.query('select pg_terminate_backend($1)', [killedPid]).then(() => abandon(new Error('killed')));
        },
      },
      set(),
    );
    await expect(killed).rejects.toThrow(/001_first\.sql failed/);
    expect(await waiting).toEqual(['probe/001_first.sql']);
    expect(told[0]).toMatch(new RegExp(`waiting for another start.*pid ${killedPid}`));
    expect(await exists(db, 'public.first')).toBe(true);
  });
});
