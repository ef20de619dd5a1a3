import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { client as clients } from '@agency/domain';
import { migrateEventStore, PostgresEventStore } from '@agency/platform';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackupHeader, HEADER_BYTES, headerBlock } from './backup-format';
import { prepareRestore, restoreBackup } from './backup-restore';
import { writeBackup } from './backup-write';
import type { ProductConfig } from './config';
import { seedDemoData } from './demo-data';
import { startEmbeddedDatabase } from './embedded-database';
import { erasedSubjectsFile, readErasedSubjects } from './erased-subjects';
import { openPersonalData, personalDataKeyFor } from './personal-data';
import { startProduct } from './product';
import { reactorsSettled } from './testing/reactors-settled';
import { createTestDatabase, endPool } from './testing/test-database';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';
import { verifyProduct } from './verify-store';

/** This test initdb's and starts a PostgreSQL cluster of its own (see store-rebase.int.test.ts). */
const CLUSTER_TEST_MS = 240_000;
const PASSPHRASE = 'correct horse battery staple';

/**
 * Every row of every read model, but the columns holding a `$all` commit position: a restore
 * renumbers the events' transaction ids below its cluster's (their order and global positions kept).
 */
async function readModelRows(db: pg.Pool) {
  const tables = await db.query<{ table_name: string; columns: string[] }>(
    `select c.table_name, array_agg(format('%I', c.column_name) order by c.ordinal_position) as columns
       from information_schema.columns c
      where c.table_schema = 'read' and c.table_name not like 'projection\\_%' and c.column_name not like '%commit%'
      group by c.table_name order by 1`,
  );
  const rows: Record<string, string[]> = {};
  for (const { table_name, columns } of tables.rows) {
    const result = await db.query(`select row(${columns.join(', ')})::text as t from read."${table_name}" order by 1`);
    rows[table_name] = result.rows.map((row) => row.t);
  }
  return rows;
}

const productConfig = (dataDir: string, databaseUrl: string): ProductConfig => ({
  port: 0,
  host: '127.0.0.1',
  dataDir,
  databaseUrl,
  adminUsername: 'someone-else',
  adminPassword: 'another-password-1',
  jwtSecret: 'test-secret-test-secret-test-secret',
  timeZone: 'Europe/London',
  publicUrl: 'http://localhost',
  mailFrom: 'Tutoring Agency <no-reply@localhost>',
  demoData: false,
});

describe('backups and the restore drill', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let token: string;
  const work = mkdtempSync(join(tmpdir(), 'agency-backup-'));
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl, max: 4 });
    await seedDemoData(product, 1);
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await endPool(db);
    await product.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  const registerFamily = async (lastName: string) => {
    const answer = await product.api(token).post('/api/clients/contact', {
      firstName: 'Imogen',
      lastName,
      address: ['1 Backup Lane', 'Oxford'],
      postcode: 'OX1 1AA',
      email: `imogen.${lastName.toLowerCase()}@example.com`,
      phone: [{ type: 'Mobile', number: '07700 900123' }],
    });
    return answer.client.id as string;
  };

  it(
    'a backup made while commands run restores into a fresh cluster, starts, verifies and reads as the original; an erasure made after it holds',
    async () => {
      const erasedLater = await registerFamily('Erasedlater');
      await reactorsSettled(db);
      const before = await readModelRows(db);
      expect(JSON.stringify(before)).toContain('Erasedlater');

      // Backed up while the product runs, a command made and answered while the snapshot is held.
      const included = join(work, 'agency.backup');
      const passphraseFile = join(work, 'passphrase');
      writeFileSync(passphraseFile, `${PASSPHRASE}\n`);
      let late = '';
      const header = await writeBackup({
        databaseUrl: product.databaseUrl,
        file: included,
        keys: 'included',
        passphrase: PASSPHRASE,
        masterKey: personalDataKeyFor(product.dataDir),
        afterSnapshot: async () => {
          // The snapshot's transaction has no id: it holds back no reader of $all.
          const backup = await db.query(
            "select backend_xid from pg_stat_activity where application_name = 'agency-backup'",
          );
          expect(backup.rows).toEqual([{ backend_xid: null }]);
          late = await registerFamily('Afterthesnapshot');
        },
      });
      expect(late).not.toBe('');
      expect(header.tables.map((t) => t.table)).toEqual(expect.arrayContaining(['es.events', 'auth.accounts']));
      expect(header.tables.some((t) => t.table.startsWith('read.') || t.table.startsWith('pii.'))).toBe(false);
      // A second backup whose keys are kept apart, unsealed.
      const apart = join(work, 'agency-apart.backup');
      await writeBackup({
        databaseUrl: product.databaseUrl,
        file: apart,
        keys: 'apart',
        masterKey: personalDataKeyFor(product.dataDir),
      });
      expect(readFileSync(`${apart}.keys`).toString('latin1')).toContain('"kind":"keys"');

      // Erased after both backups: recorded beside the product's data.
      const erased = await product.command.app.inject({
        method: 'POST',
        url: `/api/clients/erase/${erasedLater}`,
        payload: { commandId: randomUUID(), reason: 'Asked by the family', confirm: true },
        headers: { authorization: `Bearer ${token}` },
      });
      expect(erased.statusCode, erased.body).toBe(200);
      const record = erasedSubjectsFile(product.dataDir, {});
      expect(readErasedSubjects(record).map((e) => e.subject)).toContain(erasedLater);

      // Refused before anything is touched: a wrong passphrase, none, a damaged file.
      await expect(prepareRestore({ file: included, passphrase: 'not the passphrase at all' })).rejects.toThrow(
        /passphrase does not open/,
      );
      await expect(prepareRestore({ file: included })).rejects.toThrow(/under a passphrase/);
      const damaged = join(work, 'damaged.backup');
      copyFileSync(included, damaged);
      const bytes = readFileSync(damaged);
      const at = HEADER_BYTES + Math.floor((bytes.length - HEADER_BYTES) / 2);
      bytes[at] = (bytes[at] as number) ^ 0xff;
      writeFileSync(damaged, bytes);
      await expect(prepareRestore({ file: damaged, passphrase: PASSPHRASE })).rejects.toThrow(/is damaged/);
      writeFileSync(damaged, readFileSync(included).subarray(0, bytes.length - 100));
      await expect(prepareRestore({ file: damaged, passphrase: PASSPHRASE })).rejects.toThrow(/is damaged/);

      // The drill: into a fresh cluster (its own transaction ids, a master key of its own).
      const dataDir = mkdtempSync(join(tmpdir(), 'agency-restored-'));
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      const fresh = await startEmbeddedDatabase({ dataDir, database: 'agency' });
      cleanups.push(() => fresh.stop());
      const prepared = await prepareRestore({ file: included, passphrase: PASSPHRASE });
      const outcome = await restoreBackup(prepared, {
        databaseUrl: fresh.url,
        masterKey: personalDataKeyFor(dataDir, {}),
        erased: [],
      });
      expect(outcome.events).toBe(header.events);
      // A second restore over it is refused, and changes nothing.
      await expect(
        restoreBackup(prepared, { databaseUrl: fresh.url, masterKey: personalDataKeyFor(dataDir, {}), erased: [] }),
      ).rejects.toThrow(/not empty/);

      const restored = await startProduct(productConfig(dataDir, fresh.url), { log: () => {}, logLevel: 'silent' });
      cleanups.push(() => restored.stop());
      expect(restored.createdAdmin).toBeUndefined();
      const restoredDb = new pg.Pool({ connectionString: fresh.url, max: 4 });
      cleanups.push(() => endPool(restoredDb));
      await reactorsSettled(restoredDb, 60_000);
      const after = await readModelRows(restoredDb);
      expect(after).toEqual(before);
      expect(JSON.stringify(after)).not.toContain('Afterthesnapshot');

      const personalData = await openPersonalData(dataDir, fresh.url, {});
      const store = personalData.protect(await PostgresEventStore.connect(fresh.url));
      const readDb = new pg.Pool({ connectionString: fresh.url, options: '-c search_path=read', max: 4 });
      try {
        const report = await verifyProduct(restoredDb, readDb, store, 'Europe/London');
        expect(report.differences).toEqual([]);
        expect(report.events).toBe(header.events);
      } finally {
        await endPool(readDb);
        await store.close();
        await personalData.close();
      }

      // The keys kept apart, into an external PostgreSQL: the erasure made since holds, by the record
      // of erased subjects, or by a keys file of a later backup (one of an earlier backup is refused).
      const later = join(work, 'later.backup');
      await writeBackup({
        databaseUrl: product.databaseUrl,
        file: later,
        keys: 'apart',
        masterKey: personalDataKeyFor(product.dataDir),
      });
      await expect(prepareRestore({ file: later, keysFile: `${apart}.keys` })).rejects.toThrow(/earlier backup/);
      const other = await db.query<{ id: string }>('select id from read.clients where id <> $1 limit 1', [erasedLater]);
      for (const { keysFile, erased, erasedAgain } of [
        { keysFile: undefined, erased: readErasedSubjects(record), erasedAgain: [erasedLater] },
        { keysFile: `${later}.keys`, erased: [], erasedAgain: [] },
      ]) {
        const external = await createTestDatabase();
        cleanups.push(() => external.drop());
        const externalDir = mkdtempSync(join(tmpdir(), 'agency-restored-external-'));
        cleanups.push(async () => rmSync(externalDir, { recursive: true, force: true }));
        const again = await restoreBackup(await prepareRestore({ file: apart, keysFile }), {
          databaseUrl: external.url,
          masterKey: personalDataKeyFor(externalDir, {}),
          erased,
        });
        expect(again.erasedAgain).toEqual(erasedAgain);
        const externalData = await openPersonalData(externalDir, external.url, {});
        const externalStore = externalData.protect(await PostgresEventStore.connect(external.url));
        try {
          const family = await externalStore.readStream(clients.clientStream(erasedLater));
          expect((family[0]?.data.contact as { lastName: string }).lastName, keysFile).toBe('Erased');
          // A family not erased reads as ever.
          const kept = await externalStore.readStream(clients.clientStream(other.rows[0]!.id));
          expect(JSON.stringify(kept[0]?.data)).not.toContain('Erased');
        } finally {
          await externalStore.close();
          await externalData.close();
        }
      }
    },
    CLUSTER_TEST_MS,
  );

  /** A backup of `databaseUrl` with its keys apart and unsealed (no scrypt), and the header it wrote. */
  const backupOf = async (databaseUrl: string, name: string, afterSnapshot?: () => Promise<void>) => {
    const file = join(work, name);
    const header = await writeBackup({ databaseUrl, file, keys: 'apart', masterKey: MASTER_KEY, afterSnapshot });
    return { file, header };
  };
  const MASTER_KEY = Buffer.alloc(32, 7);
  const emptyDatabase = async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    return database.url;
  };
  const restoreInto = async (url: string, file: string) =>
    restoreBackup(await prepareRestore({ file }), { databaseUrl: url, masterKey: MASTER_KEY, erased: [] });
  const tablesOf = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (
        await client.query(
          "select count(*)::int as n from pg_tables where schemaname not like 'pg\\_%' and schemaname <> 'information_schema'",
        )
      ).rows[0].n as number;
    } finally {
      await client.end();
    }
  };

  it('a backup into a folder that is not there, or through a file, is refused before the database is touched, and leaves nothing', async () => {
    const unreachable = 'postgres://nobody@127.0.0.1:1/none';
    const options = { databaseUrl: unreachable, keys: 'apart' as const, masterKey: MASTER_KEY };
    await expect(writeBackup({ ...options, file: join(work, 'no-such-folder', 'a.backup') })).rejects.toThrow(
      /Cannot write .*a\.backup: there is no such folder .*Nothing was written/,
    );
    writeFileSync(join(work, 'a-file'), '');
    await expect(writeBackup({ ...options, file: join(work, 'a-file', 'a.backup') })).rejects.toThrow(
      /part of its path is a file, not a folder/,
    );
    // The keys' folder too, and the backup's partial file goes with the refusal.
    await expect(
      writeBackup({ ...options, file: join(work, 'b.backup'), keysFile: join(work, 'nowhere', 'b.keys') }),
    ).rejects.toThrow(/Cannot write .*b\.keys: there is no such folder/);
    expect(readdirSync(work).filter((name) => name.startsWith('a.') || name.startsWith('b.'))).toEqual([]);
  });

  it('a backup made while a long write transaction runs elsewhere waits for it in nothing, holds none of it and holds nobody back', async () => {
    const metadata = { userId: 'test', role: 'admin', commandId: randomUUID(), correlationId: 't', causationId: 't' };
    const append = (client: pg.PoolClient | pg.Pool, stream: string) =>
      client.query(
        `select * from es.append_to_stream($1, -1, array[$2::uuid], array['BackupProbeRecorded'], array['{}'::jsonb], array[$3::jsonb])`,
        [stream, randomUUID(), JSON.stringify(metadata)],
      );
    const long = await db.connect();
    try {
      await long.query('begin');
      await append(long, 'backup-probe-uncommitted');
      await long.query("update auth.accounts set username = username where username = 'admin'");
      const { file, header } = await backupOf(product.databaseUrl, 'during-a-write.backup', async () => {
        // Another append commits while both run: the snapshot holds back neither.
        await append(db, 'backup-probe-after-the-snapshot');
      });
      await long.query('commit');
      const target = await emptyDatabase();
      await restoreInto(target, file);
      const restored = new pg.Pool({ connectionString: target, max: 1 });
      try {
        const probes = await restored.query("select stream_id from es.events where stream_id like 'backup-probe-%'");
        expect(probes.rows).toEqual([]);
        const events = await restored.query('select count(*)::int as n from es.events');
        expect(events.rows[0].n).toBe(header.events);
        const accounts = await restored.query("select count(*)::int as n from auth.accounts where username = 'admin'");
        expect(accounts.rows[0].n).toBe(1);
      } finally {
        await endPool(restored);
      }
      const source = await db.query("select count(*)::int as n from es.events where stream_id like 'backup-probe-%'");
      expect(source.rows[0].n).toBe(2);
    } finally {
      await long.query('rollback').catch(() => {});
      long.release();
    }
  });

  it('a header that lists other tables, rows or transactions than its body holds is refused, and two restores at once into one target load it once', async () => {
    const { file, header } = await backupOf(product.databaseUrl, 'header.backup');
    const body = readFileSync(file).subarray(HEADER_BYTES);
    const withHeader = (name: string, block: Buffer) => {
      const path = join(work, name);
      writeFileSync(path, Buffer.concat([block, body]));
      copyFileSync(`${file}.keys`, `${path}.keys`);
      return path;
    };
    const edited = (name: string, change: (h: BackupHeader) => BackupHeader) =>
      withHeader(name, headerBlock(change(structuredClone(header))));
    // A damaged header (one digit of a count) is caught by its own checksum.
    const block = headerBlock(header);
    const at = block.indexOf(`"events":${header.events}`) + '"events":'.length;
    block[at] = block[at] === 0x31 ? 0x32 : 0x31;
    await expect(prepareRestore({ file: withHeader('digit.backup', block) })).rejects.toThrow(
      /header does not match its checksum/,
    );
    // A header written whole but wrong (a writer's bug): the body is compared with it before anything is made.
    const busiest = header.tables.reduce((a, b) => (b.rows > a.rows ? b : a));
    for (const [name, change] of [
      [
        'rows.backup',
        (h: BackupHeader) => ({
          ...h,
          tables: h.tables.map((t) => (t.table === busiest.table ? { ...t, rows: t.rows + 1 } : t)),
        }),
      ],
      [
        'missing-table.backup',
        (h: BackupHeader) => ({ ...h, tables: h.tables.filter((t) => t.table !== busiest.table) }),
      ],
      [
        'columns.backup',
        (h: BackupHeader) => ({
          ...h,
          tables: h.tables.map((t) => (t.table === busiest.table ? { ...t, columns: t.columns.slice(1) } : t)),
        }),
      ],
    ] as const) {
      await expect(prepareRestore({ file: edited(name, change) })).rejects.toThrow(/header lists other tables or rows/);
    }
    // Fewer transactions than the events have: refused in the load, which leaves the target empty.
    const target = await emptyDatabase();
    await expect(
      restoreInto(
        target,
        edited('transactions.backup', (h) => ({ ...h, transactions: h.transactions - 1 })),
      ),
    ).rejects.toThrow(/holds \d+ events of \d+ transactions, its header \d+ of \d+/);
    expect(await tablesOf(target)).toBe(0);
    // Two restores at once: one loads, the other waits for it and is refused as the target is no longer empty.
    const outcomes = await Promise.allSettled([restoreInto(target, file), restoreInto(target, file)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(String(outcomes.find((o) => o.status === 'rejected')?.reason)).toMatch(/target database is not empty/);
  });

  it('odd values come back as they were: every byte in bytea, control and astral characters, a COPY end marker and new lines in text, json with NUL, a 1 MB row', async () => {
    const source = await emptyDatabase();
    const pool = new pg.Pool({ connectionString: source, max: 1 });
    const rows = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // Compared by their digests and lengths: pg's parsing of a megabyte of bytea is slow, not the restore.
        return (
          await client.query(
            'select id, md5(t) as t, length(t) as chars, md5(b) as b, length(b) as bytes, j::text as j, js::text as js from extreme.odd order by id',
          )
        ).rows;
      } finally {
        await client.end();
      }
    };
    const odd = 'a\tb\nc\r\nd\\e\n\\.\n\u2028\u2029\u0085é🐘\u0001\u007f"\'`;,|';
    const big = Array.from({ length: 1024 * 400 }, (_, i) =>
      i % 2 ? '🐘' : String.fromCharCode(0x20 + (i % 0x5f)),
    ).join('');
    try {
      await migrateEventStore(pool);
      await pool.query(
        'create schema extreme; create table extreme.odd (id int primary key, t text, b bytea, j jsonb, js json)',
      );
      await pool.query(
        `insert into extreme.odd values ($1, $2, $3, $4, $5), (2, $6, $7, null, null), (3, null, null, '{}', '[]')`,
        [
          1,
          odd,
          Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
          JSON.stringify({ [odd]: [odd, 1e300, null] }),
          '{"nul": "\\u0000", "same": 1, "same": 2}',
          `${big}${odd}`,
          Buffer.alloc(1024 * 1024, 0x5c),
        ],
      );
    } finally {
      await endPool(pool);
    }
    const { file } = await backupOf(source, 'odd.backup');
    const target = await emptyDatabase();
    await restoreInto(target, file);
    const before = await rows(source);
    expect(before[1]).toMatchObject({ chars: [...big, ...odd].length, bytes: 1024 * 1024 });
    expect(await rows(target)).toEqual(before);
  });

  /**
   * `code` run in a child process (the backup or restore modules imported as `write`, `restore`),
   * SIGKILLed once its session of `databaseUrl` named `application` waits for a lock the test holds:
   * a process killed half-way, at a point the test chose.
   */
  const killWhileWaiting = async (databaseUrl: string, application: string, code: string) => {
    const modules = `const write = await import(${JSON.stringify(fileURLToPath(new URL('./backup-write.ts', import.meta.url)))});
      const restore = await import(${JSON.stringify(fileURLToPath(new URL('./backup-restore.ts', import.meta.url)))});`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `${modules}\n${code}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const watcher = new pg.Client({ connectionString: databaseUrl });
    await watcher.connect();
    try {
      // Polled: the wait is the child's to reach; a child that ends first fails the test with what it said.
      for (;;) {
        const waiting = await watcher.query(
          "select 1 from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
          [application],
        );
        if (waiting.rows.length > 0) break;
        if (child.exitCode !== null) throw new Error(`The child ended before it waited: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      await watcher.end();
    }
    const pid = child.pid as number;
    child.kill('SIGKILL');
    await exited;
    return pid;
  };

  it('a backup killed half-way leaves the older backup under its name and a partial file no restore takes; a restore killed half-way leaves the target empty and runs again', async () => {
    const { file, header } = await backupOf(product.databaseUrl, 'killed.backup');
    // The backup waits for a table late in its order (a lock the test holds) after writing the others.
    const holder = await db.connect();
    let pid: number;
    try {
      await holder.query('begin');
      await holder.query('lock table migrations.applied in access exclusive mode');
      // Given up on clearly (here after 50 ms), naming who held the table, with nothing written.
      await expect(
        writeBackup({
          databaseUrl: product.databaseUrl,
          file,
          keys: 'apart',
          masterKey: MASTER_KEY,
          lockTimeoutMs: 50,
        }),
      ).rejects.toThrow(
        /waited too long for a table another transaction holds exclusively \(pid \d+ .*lock table migrations\.applied/,
      );
      pid = await killWhileWaiting(
        product.databaseUrl,
        'agency-backup',
        `await write.writeBackup({ databaseUrl: ${JSON.stringify(product.databaseUrl)}, file: ${JSON.stringify(file)},
           keys: 'apart', masterKey: Buffer.alloc(32, 7) });`,
      );
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    expect((await prepareRestore({ file })).header.backupId).toBe(header.backupId);
    expect(readdirSync(work).filter((name) => name.startsWith('killed.backup.partial-'))).toEqual([
      `killed.backup.partial-${pid}`,
    ]);
    const partial = `${file}.partial-${pid}`;
    expect(readdirSync(work)).toContain(`killed.backup.partial-${pid}`);
    await expect(prepareRestore({ file: partial })).rejects.toThrow(/is not a backup of this product/);
    // The next backup there takes the killed one's leftovers away.
    const next = await backupOf(product.databaseUrl, 'killed.backup');
    expect(readdirSync(work).filter((name) => name.startsWith('killed.backup.partial-'))).toEqual([]);

    // The restore waits to create a schema another transaction is creating, its load begun, and is killed there.
    const target = await emptyDatabase();
    const other = new pg.Client({ connectionString: target });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('create schema pii');
      await killWhileWaiting(
        target,
        'agency-restore',
        `const prepared = await restore.prepareRestore({ file: ${JSON.stringify(file)} });
         await restore.restoreBackup(prepared, { databaseUrl: ${JSON.stringify(target)}, masterKey: Buffer.alloc(32, 7), erased: [] });`,
      );
    } finally {
      await other.query('rollback');
      await other.end();
    }
    expect(await tablesOf(target)).toBe(0);
    const again = await restoreInto(target, file);
    expect(again.events).toBe(next.header.events);
    expect(await tablesOf(target)).toBeGreaterThan(0);
  });
});
