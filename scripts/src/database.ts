import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type RunningDatabase, startEmbeddedDatabase } from './embedded-database';

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function reachable(url: string) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The database for this DATA_DIR: DATABASE_URL when set; the embedded PostgreSQL another live
 * process of ours already runs (e.g. `npm run rebuild` beside `npm start`); or a new embedded
 * one, which first stops any PostgreSQL a killed process left behind.
 */
export async function openDatabase(options: {
  dataDir: string;
  databaseUrl?: string;
  log?: (line: string) => void;
}): Promise<RunningDatabase> {
  if (options.databaseUrl) return { url: options.databaseUrl, stop: async () => {} };
  const ownerFile = join(options.dataDir, 'pg-owner.json');
  if (existsSync(ownerFile)) {
    const owner = JSON.parse(readFileSync(ownerFile, 'utf8')) as { pid: number; url: string };
    if (owner.pid !== process.pid && alive(owner.pid) && (await reachable(owner.url))) {
      return { url: owner.url, stop: async () => {} };
    }
  }
  const database = await startEmbeddedDatabase({ dataDir: options.dataDir, log: options.log });
  // Its URL holds the database password: readable by this account only.
  rmSync(ownerFile, { force: true });
  writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, url: database.url }), { mode: 0o600 });
  return {
    url: database.url,
    stop: async () => {
      rmSync(ownerFile, { force: true });
      await database.stop();
    },
  };
}
