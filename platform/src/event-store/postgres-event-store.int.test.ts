import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningDatabase, startEmbeddedDatabase } from '@agency/scripts/embedded-database';
import pg from 'pg';
import { afterAll } from 'vitest';
import { eventStoreContract } from '../testing/event-store-contract';
import { migrateEventStore, PostgresEventStore } from './postgres/postgres-event-store';

/**
 * The contract runs on a cluster of this file's own. On the test run's shared cluster its live
 * subscriber test once waited out its four-minute bound, at the end of a full run, with every
 * event appended and visible; alone, and beside the files that hold transactions open, it takes
 * 5 s. A `$all` reader's horizon is cluster-wide state, so a file that asserts how soon a subscriber
 * sees everything is given a cluster no other file creates, drops or writes databases in.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'agency-es-contract-'));
let cluster: Promise<RunningDatabase> | undefined;
afterAll(async () => {
  await (await cluster)?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

eventStoreContract('PostgreSQL', async () => {
  cluster ??= startEmbeddedDatabase({ dataDir });
  const { url } = await cluster;
  const name = `contract_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const own = new URL(url);
  own.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: own.toString(), max: 20 });
  await migrateEventStore(pool);
  return {
    store: new PostgresEventStore(pool),
    // The store's close ends its pool; the cluster goes with the file.
    dispose: async () => {},
  };
});
