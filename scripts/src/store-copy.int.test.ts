import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventStore, PostgresEventStore } from '@agency/platform';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { copyStore, verifyCopy } from './copy-store';
import { createTestDatabase } from './testing/test-database';
import { startTestProduct } from './testing/test-product';

// One master key for the products started here and the scripts they spawn (personal fields are sealed with it).
process.env.PERSONAL_DATA_KEY = randomBytes(32).toString('base64');

/** Every row of every read model table (not the bookkeeping of where projections are). */
async function readModels(url: string) {
  const db = new pg.Pool({ connectionString: url });
  try {
    const tables = await db.query(
      `select table_name from information_schema.tables
        where table_schema = 'read' and table_name !~ '(checkpoint|projection|read_model_info)' order by 1`,
    );
    const rows: Record<string, unknown[]> = {};
    for (const { table_name } of tables.rows) {
      rows[table_name] = (await db.query(`select * from read."${table_name}" t order by t::text`)).rows;
    }
    return rows;
  } finally {
    await db.end();
  }
}

/** The target as a copy sees it, except that it fails (like a killed process) after `events` appended events. */
function interruptedAfter(target: EventStore, events: number): EventStore {
  let appended = 0;
  return {
    ...target,
    readStream: (streamId) => target.readStream(streamId),
    readAll: (options) => target.readAll(options),
    appendToStream: async (streamId, batch, options) => {
      if (appended + batch.length > events) throw new Error('interrupted');
      appended += batch.length;
      return target.appendToStream(streamId, batch, options);
    },
  };
}

const run = (script: string, args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });

describe('npm run store:copy', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it('copies a store in $all order, resumes after an interruption and verifies the copy', async () => {
    // The source: a product's store with families and children registered through the API.
    const product = await startTestProduct();
    cleanups.push(product.dispose);
    const token = await product.login('admin', 'admin-password-1');
    for (const name of ['Ada', 'Grace', 'Alan']) {
      const made = await product.api(token).post('/api/clients/contact', {
        firstName: name,
        lastName: 'Copied',
        address: ['1 Road'],
        postcode: 'AB1 2CD',
        email: `${name.toLowerCase()}@example.com`,
        phone: [{ type: 'Home', number: '0100' }],
      });
      await product.api(token).post(`/api/clients/child/${made.client.id}`, {
        firstName: `${name}Child`,
        lastName: 'Copied',
        dob: '2015-06-01',
      });
    }
    await product.stop();
    const sourceUrl = product.databaseUrl;
    const source = new PostgresEventStore(new pg.Pool({ connectionString: sourceUrl }));
    cleanups.push(() => source.close());
    const all = await source.readAll({ limit: 100_000 });
    expect(all.length).toBeGreaterThanOrEqual(8);

    // The target: a fresh PostgreSQL store. The first copy dies after 5 events.
    const targetDatabase = await createTestDatabase();
    cleanups.push(targetDatabase.drop);
    const target = await PostgresEventStore.connect(targetDatabase.url);
    cleanups.push(() => target.close());
    await expect(copyStore(source, interruptedAfter(target, 5), { pageSize: 4 })).rejects.toThrow('interrupted');
    // Runs of one stream go in one append: the copy stopped at the last whole run within 5 events.
    const before = (await target.readAll({ limit: 100_000 })).length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThanOrEqual(5);
    const partial = await verifyCopy(source, target);
    expect(partial.mismatches.length).toBeGreaterThan(0);

    // Run again (the command a user runs): it skips what is there, copies the rest and verifies.
    const dataDir = mkdtempSync(join(tmpdir(), 'agency-copy-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const copy = run('scripts/src/store-copy.ts', ['--to', targetDatabase.url], {
      DATABASE_URL: sourceUrl,
      DATA_DIR: dataDir,
    });
    expect(copy.status, copy.stderr + copy.stdout).toBe(0);
    expect(copy.stdout).toContain(`Copied ${all.length - before} events (${before} were already there).`);
    expect(copy.stdout).toContain(`The copy holds the same ${all.length} events`);

    // Same streams, revisions, ids, types, payloads and metadata (the original recordedAt kept), in $all order.
    const copied = await target.readAll({ limit: 100_000 });
    const shape = (events: typeof all) =>
      events.map(({ streamId, revision, id, type, data, metadata }) => ({
        streamId,
        revision,
        id,
        type,
        data,
        metadata,
      }));
    expect(shape(copied)).toEqual(shape(all));
    expect((await verifyCopy(source, target)).mismatches).toEqual([]);

    // A copy that differs is caught: one more event in one stream.
    const [first] = all;
    await target.appendToStream(first!.streamId, [{ type: 'Extra', data: {}, metadata: first!.metadata }], {
      expectedRevision: 'any',
    });
    const tampered = await verifyCopy(source, target);
    expect(tampered.mismatches.map((m) => m.streamId)).toEqual([first!.streamId]);
    const check = run('scripts/src/store-copy.ts', ['--to', targetDatabase.url, '--verify'], {
      DATABASE_URL: sourceUrl,
      DATA_DIR: dataDir,
    });
    expect(check.status, check.stdout + check.stderr).toBe(1);
    expect(check.stderr).toContain('1 of the streams differ');
  });

  it('npm run rebuild builds the same read models from a copy as the source had', async () => {
    const product = await startTestProduct();
    cleanups.push(product.dispose);
    const token = await product.login('admin', 'admin-password-1');
    await product.api(token).post('/api/clients/contact', {
      firstName: 'Rebuilt',
      lastName: 'Copied',
      address: ['1 Road'],
      postcode: 'AB1 2CD',
      email: 'rebuilt@example.com',
      phone: [{ type: 'Home', number: '0100' }],
    });
    await product.stop();
    const targetDatabase = await createTestDatabase();
    cleanups.push(targetDatabase.drop);
    const dataDir = mkdtempSync(join(tmpdir(), 'agency-copy-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const copy = run('scripts/src/store-copy.ts', ['--to', targetDatabase.url], {
      DATABASE_URL: product.databaseUrl,
      DATA_DIR: dataDir,
    });
    expect(copy.status, copy.stderr + copy.stdout).toBe(0);
    const rebuild = run('scripts/src/rebuild.ts', [], { DATABASE_URL: targetDatabase.url, DATA_DIR: dataDir });
    expect(rebuild.status, rebuild.stderr + rebuild.stdout).toBe(0);
    expect(await readModels(targetDatabase.url)).toEqual(await readModels(product.databaseUrl));
  });
});
