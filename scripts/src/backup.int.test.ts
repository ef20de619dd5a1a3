import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client as clients } from '@agency/domain';
import { PostgresEventStore } from '@agency/platform';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADER_BYTES } from './backup-format';
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
});
