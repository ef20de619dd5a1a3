import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LOGIN_LIMITS } from '@agency/command-service';
import { PostgresEventStore } from '@agency/platform';
import { PROJECTION_LEADER_LOCK, projections, rebuildReadModels } from '@agency/projection-service';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPersonalData } from './personal-data';
import { type RunningProduct, startProduct } from './product';
import { createTestDatabase } from './testing/test-database';
import { TEST_ADMIN, testProductConfig } from './testing/test-product';

const ADMIN = TEST_ADMIN;

/**
 * One more instance of the product on `databaseUrl` (which may already have others). Instances
 * share their secrets (in production: JWT_SECRET and PERSONAL_DATA_KEY from one .env); here they
 * share DATA_DIR, where the personal-data master key is made.
 */
async function startInstance(databaseUrl: string, dataDir: string) {
  return startProduct(testProductConfig(databaseUrl, dataDir), {
    log: () => {},
    logLevel: 'silent',
    loginLimits: { ...DEFAULT_LOGIN_LIMITS, freePerAddress: 1000 },
  });
}

async function login(product: RunningProduct) {
  const response = await product.command.app.inject({ method: 'POST', url: '/auth/local', payload: ADMIN });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().token as string;
}

/** Registers a family through `product`; its answer comes once the family is in the read model. */
async function registerFamily(product: RunningProduct, token: string, firstName: string) {
  const response = await product.command.app.inject({
    method: 'POST',
    url: '/api/clients/contact',
    headers: { authorization: `Bearer ${token}` },
    payload: {
      commandId: randomUUID(),
      firstName,
      lastName: 'Twin',
      address: ['1 Road'],
      postcode: 'AB1 2CD',
      email: `${firstName.toLowerCase()}@example.com`,
      phone: [{ type: 'Home', number: '0100' }],
    },
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** The family names the query side of `product` answers with. */
async function familyNames(product: RunningProduct, token: string): Promise<string[]> {
  const response = await fetch(`${product.url}/api/clients?includeInactive=true`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()).clients as { name: string }[]).map((client) => client.name).sort();
}

/** Every row of every read model table (not the bookkeeping of where projections are). */
async function readModels(db: pg.Pool) {
  const tables = await db.query(
    `select table_name from information_schema.tables
      where table_schema = 'read' and table_name !~ '(checkpoint|projection|read_model_info)' order by 1`,
  );
  const rows: Record<string, unknown[]> = {};
  for (const { table_name } of tables.rows) {
    rows[table_name] = (await db.query(`select * from read."${table_name}" t order by t::text`)).rows;
  }
  return rows;
}

async function eventually(condition: () => boolean, what: string) {
  for (let i = 0; i < 300 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  if (!condition()) throw new Error(`never: ${what}`);
}

describe('several instances of the product on one database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-instances-'));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('one runs the projections; when it dies the other takes over, and nothing is lost or applied twice', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const first = await startInstance(database.url, dataDir);
    cleanups.push(first.stop);
    const second = await startInstance(database.url, dataDir);
    cleanups.push(second.stop);

    // Exactly one leads: the first took the lock, the second keeps trying.
    expect(first.leadership.isLeader).toBe(true);
    expect(second.leadership.isLeader).toBe(false);
    const admin = new pg.Pool({ connectionString: database.url });
    cleanups.push(() => admin.end());
    const lockHolders = async () =>
      Number(
        (
          await admin.query(
            `select count(*) from pg_locks where locktype = 'advisory' and granted and objid = ${PROJECTION_LEADER_LOCK} and classid = 0
               and database = (select oid from pg_database where datname = current_database())`,
          )
        ).rows[0].count,
      );
    expect(await lockHolders()).toBe(1);

    // Commands to both: the follower's answers wait for the leader's checkpoints (read-your-writes).
    const firstToken = await login(first);
    const secondToken = await login(second);
    const sent: string[] = [];
    for (let i = 0; i < 4; i++) {
      sent.push(`First${i}`, `Second${i}`);
      await Promise.all([
        registerFamily(first, firstToken, `First${i}`),
        registerFamily(second, secondToken, `Second${i}`),
      ]);
    }
    expect(await familyNames(second, secondToken)).toEqual(sent.map((name) => `${name} Twin`).sort());

    // The leader dies: its lock session is cut off at the server, as a crashed process's would be,
    // while commands keep arriving at the survivor; then the rest of it goes.
    const pid = first.leadership.sessionPid;
    expect(pid).toBeTypeOf('number');
    const during = Array.from({ length: 3 }, (_, i) => `During${i}`);
    sent.push(...during);
    const racing = Promise.all(during.map((name) => registerFamily(second, secondToken, name)));
    await admin.query('select pg_terminate_backend($1)', [pid]);
    await first.stop();
    await racing;

    await eventually(() => second.leadership.isLeader, 'the second instance leads');
    expect(await lockHolders()).toBe(1);
    for (let i = 0; i < 3; i++) {
      sent.push(`After${i}`);
      await registerFamily(second, secondToken, `After${i}`);
    }
    expect(await familyNames(second, secondToken)).toEqual(sent.map((name) => `${name} Twin`).sort());

    // Nothing applied twice or lost: the live read models equal a rebuild from the events.
    const live = await readModels(admin);
    expect(live.clients).toHaveLength(sent.length);
    const personalData = await openPersonalData(dataDir, database.url);
    cleanups.push(personalData.close);
    const store = personalData.protect(new PostgresEventStore(new pg.Pool({ connectionString: database.url })));
    cleanups.push(() => store.close());
    await second.stop();
    await rebuildReadModels(admin, store, projections);
    expect(await readModels(admin)).toEqual(live);
  });
});
