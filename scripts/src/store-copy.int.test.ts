import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventStore, PostgresEventStore } from '@agency/platform';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyStore, verifyCopy } from './copy-store';
import { startProduct } from './product';
import { reactorsSettled } from './testing/reactors-settled';
import { createTestDatabase } from './testing/test-database';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';
import { contact } from './testing/test-requests';

// One master key for the products started here and the scripts they spawn (personal fields are
// sealed with it), for this file only: the test files after it in the same worker share process.env.
const keyBefore = process.env.PERSONAL_DATA_KEY;
beforeAll(() => {
  process.env.PERSONAL_DATA_KEY = randomBytes(32).toString('base64');
});
afterAll(() => {
  if (keyBefore === undefined) delete process.env.PERSONAL_DATA_KEY;
  else process.env.PERSONAL_DATA_KEY = keyBefore;
});

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
  /** npm run store:copy of `source` into a new database, with a DATA_DIR of its own; both go after the tests. */
  const copyToANewDatabase = async (source: string) => {
    const targetDatabase = await createTestDatabase();
    cleanups.push(targetDatabase.drop);
    const dataDir = mkdtempSync(join(tmpdir(), 'agency-copy-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const copy = run('scripts/src/store-copy.ts', ['--to', targetDatabase.url], {
      DATABASE_URL: source,
      DATA_DIR: dataDir,
    });
    expect(copy.status, copy.stderr + copy.stdout).toBe(0);
    return { targetDatabase, dataDir, copy };
  };
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
    const { targetDatabase, dataDir } = await copyToANewDatabase(product.databaseUrl);
    const rebuild = run('scripts/src/rebuild.ts', [], { DATABASE_URL: targetDatabase.url, DATA_DIR: dataDir });
    expect(rebuild.status, rebuild.stderr + rebuild.stdout).toBe(0);
    expect(await readModels(targetDatabase.url)).toEqual(await readModels(product.databaseUrl));
  });

  it('a product started on a PostgreSQL copy carries on: numbers, names, accounts and reactors as the source left them', async () => {
    const product = await startTestProduct();
    cleanups.push(product.dispose);
    const ok = async (on: Pick<TestProduct, 'command'>, token: string, url: string, payload: object) => {
      const response = await on.command.app.inject({
        method: 'POST',
        url,
        payload: { commandId: randomUUID(), ...payload },
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    };
    const admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const { tutor } = await ok(product, admin, '/api/tutors/contact', {
      contact: contact('Cora', 'Copied'),
      tutor: { username: 'cora.copied', invoicePrefix: 'CC', startDate: '2024-01-01' },
    });
    const { client } = await ok(product, admin, '/api/clients/contact', contact('Pam', 'Copied'));
    const { child } = await ok(product, admin, `/api/clients/child/${client.id}`, {
      firstName: 'Kay',
      lastName: 'Copied',
      dob: '2014-01-01',
    });
    const { engagement } = await ok(product, admin, '/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 0,
      startDate: '2024-01-01',
      subjects: ['Maths'],
    });
    for (const month of ['2025-02', '2025-03'])
      await ok(product, admin, `/api/lessons/lesson?month=${month}`, {
        tutorId: tutor.id,
        lesson: { engagementId: engagement.id, date: `${month}-03`, duration: 1.5 },
      });
    await ok(product, admin, '/api/invoices/save', { tutorId: tutor.id, year: 2025, month: 2 });
    const first = await ok(product, admin, '/api/consultations', {
      client: client.id,
      child: child.id,
      date: '2025-02-03',
    });
    const sourceDb = new pg.Pool({ connectionString: product.databaseUrl });
    cleanups.push(() => sourceDb.end());
    await reactorsSettled(sourceDb);
    await product.stop();

    const { targetDatabase, copy } = await copyToANewDatabase(product.databaseUrl);
    for (const table of ['invoice.reference_counters', 'command.usernames', 'command.tutor_names', 'auth.accounts'])
      expect(copy.stdout).toContain(`Copied ${table}:`);
    expect(copy.stdout).not.toContain('auth.sessions');

    // Each reactor stands where it stood in the source: at the last event, as the copy numbers it.
    const targetDb = new pg.Pool({ connectionString: targetDatabase.url });
    cleanups.push(() => targetDb.end());
    const head = await targetDb.query(
      `select transaction_id::text as commit, global_position::text as prepare from es.events
        order by transaction_id desc, global_position desc limit 1`,
    );
    const reactors = await targetDb.query(
      'select name, commit_position::text as commit, prepare_position::text as prepare from command.reactor_checkpoints',
    );
    expect(reactors.rows.length).toBeGreaterThan(0);
    for (const reactor of reactors.rows) expect(reactor).toEqual({ name: reactor.name, ...head.rows[0] });

    const copyDir = mkdtempSync(join(tmpdir(), 'agency-copy-product-'));
    cleanups.push(async () => rmSync(copyDir, { recursive: true, force: true }));
    const copied = await startProduct(
      {
        port: 0,
        host: '127.0.0.1',
        dataDir: copyDir,
        databaseUrl: targetDatabase.url,
        adminUsername: TEST_ADMIN.username,
        adminPassword: 'another-password-2',
        jwtSecret: 'test-secret-test-secret-test-secret',
        timeZone: 'Europe/London',
        publicUrl: 'http://localhost',
        mailFrom: 'Tutoring Agency <no-reply@localhost>',
        demoData: false,
      },
      { log: () => {}, logLevel: 'silent', reactorBackoff: { firstMs: 10, maxMs: 100 } },
    );
    cleanups.push(copied.stop);
    // The accounts came along: no second admin, and the source's password signs in.
    expect(copied.createdAdmin).toBeUndefined();
    const login = await copied.command.app.inject({
      method: 'POST',
      url: '/auth/local',
      payload: TEST_ADMIN,
    });
    expect(login.statusCode, login.body).toBe(200);
    const token = login.json().token as string;

    // A tutor invoice and a family credit note on the copy take numbers the source never gave.
    await ok(copied, token, '/api/invoices/save', { tutorId: tutor.id, year: 2025, month: 3 });
    await ok(copied, token, '/api/consultations/cancel', { id: first.consultation.id });
    await reactorsSettled(targetDb);
    const invoices = await targetDb.query('select reference from read.invoices order by reference');
    const tutorReferences = invoices.rows.map((row) => row.reference as string);
    expect(tutorReferences).toHaveLength(2);
    expect(new Set(tutorReferences).size).toBe(2);
    const documents = await targetDb.query(
      `select data->>'reference' as reference from es.events
        where event_type in ('FamilyInvoiceIssued', 'FamilyCreditNoteIssued')`,
    );
    const references = documents.rows.map((row) => row.reference);
    expect(references).toHaveLength(2);
    expect(new Set(references).size).toBe(references.length);
    // The tutor's username and prefix stay taken.
    const again = await copied.command.app.inject({
      method: 'POST',
      url: '/api/tutors/contact',
      payload: {
        commandId: randomUUID(),
        contact: contact('Cora', 'Again'),
        tutor: { username: 'cora.copied', invoicePrefix: 'CC', startDate: '2024-01-01' },
      },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(again.statusCode, again.body).toBe(409);
    // Nothing stalls: every projection and reactor at the head, none stopped.
    const stopped = await targetDb.query(
      `select name, failure from read.projection_checkpoints where failure is not null
       union all select name, failure from command.reactor_checkpoints where failure is not null`,
    );
    expect(stopped.rows).toEqual([]);
    const health = await fetch(`${copied.url}/api/health`);
    expect(health.status).toBe(200);
  });
});
