import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, createWriteStream, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import {
  type BackupHeader,
  BackupRefused,
  columnList,
  HEADER_BYTES,
  headerBlock,
  type KeysHeader,
  type KeysPayload,
  qualified,
  type SequenceEntry,
  sealKeys,
  type TableEntry,
} from './backup-format';
import { OUTSIDE_BACKUP, schemaDdl } from './backup-schema';
import { LEFT_BEHIND } from './copy-store';

/** The schema whose tables are the personal-data keys: kept apart from the rest, under a passphrase or in their own file. */
export const KEYS_SCHEMA = 'pii';

export type BackupOptions = {
  databaseUrl: string;
  file: string;
  keys: 'included' | 'apart';
  /** Where `apart` keys go (FILE.keys unless said). */
  keysFile?: string;
  /** Required with `included`; with `apart`, the keys file is sealed under it too when given. */
  passphrase?: string;
  /** The master key the data keys are wrapped with (travels with them). */
  masterKey: Buffer;
  /** Called once the snapshot is taken (tests: commands go on meanwhile). */
  afterSnapshot?: () => Promise<void>;
  /** How long a table's lock is waited for (an exclusive lock someone else holds) before the backup gives up. */
  lockTimeoutMs?: number;
};

/**
 * A table another transaction holds exclusively (a migration altering it, a `lock table`) is
 * waited for this long, then the backup stops, naming who held it: a daily backup never hangs
 * silently into the next day's.
 */
const LOCK_TIMEOUT_MS = 60_000;

/** A file written whole under a temporary name, then renamed: a backup cut short leaves no file that looks whole. */
function partialName(file: string) {
  return `${file}.partial-${process.pid}`;
}

/** The partial files a killed backup left beside `file` (their process is gone): removed, as they may be large. */
function removeLeftPartials(file: string) {
  const prefix = `${basename(file)}.partial-`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return; // the folder's own trouble is told by makePartial
  }
  for (const name of names) {
    const pid = Number(name.slice(prefix.length));
    if (!name.startsWith(prefix) || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as { code?: string }).code === 'ESRCH') rmSync(join(dirname(file), name), { force: true });
    }
  }
}

/**
 * The partial file made at once, empty, so that a folder missing or not writable is told before
 * the database is touched, not as an error about a temporary name once the tables are read.
 */
function makePartial(partial: string, file: string) {
  try {
    closeSync(openSync(partial, 'w', 0o600));
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why =
      code === 'ENOENT'
        ? 'there is no such folder'
        : code === 'ENOTDIR'
          ? 'part of its path is a file, not a folder'
          : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
            ? 'that folder is not writable'
            : (error as Error).message;
    throw new BackupRefused(`Cannot write ${file}: ${why} (${dirname(file)}). Nothing was written.`);
  }
}

/**
 * One consistent copy of the product's database (but its read models, sessions and login
 * counters): a single REPEATABLE READ READ ONLY transaction, which takes no transaction id, so
 * the live projections and every reader of `$all` go on past it (their horizon is held back only
 * by transactions with an id: docs/backups.md). Each table is streamed with COPY into the gzip
 * body; nothing is held in memory but the keys.
 */
export async function writeBackup(options: BackupOptions): Promise<BackupHeader> {
  if (options.keys === 'included' && !options.passphrase) {
    throw new Error(
      '--keys included seals the personal-data keys under a passphrase: give --passphrase-file (or --keys apart)',
    );
  }
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'agency-backup' });
  const partial = partialName(options.file);
  const keysFile = options.keysFile ?? `${options.file}.keys`;
  const keysPartial = partialName(keysFile);
  removeLeftPartials(options.file);
  if (options.keys === 'apart') removeLeftPartials(keysFile);
  makePartial(partial, options.file);
  try {
    if (options.keys === 'apart') makePartial(keysPartial, keysFile);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  try {
    await client.connect();
    await client.query('begin isolation level repeatable read read only');
    await client.query(`set local lock_timeout = ${Math.max(1, Math.round(options.lockTimeoutMs ?? LOCK_TIMEOUT_MS))}`);
    // The snapshot is taken at the first statement: everything below reads as of this moment.
    const tables = (
      await client.query<{ table: string; columns: string[] }>(
        `select format('%s.%s', n.nspname, c.relname) as table,
                array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0
                        and not a.attisdropped and a.attgenerated = '' order by a.attnum) as columns
           from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where ${OUTSIDE_BACKUP} and c.relkind = 'r' order by n.nspname = $1 desc, 1`,
        [KEYS_SCHEMA],
      )
    ).rows;
    if (!tables.some(({ table }) => table === 'es.events')) {
      throw new BackupRefused(
        'This database holds no event store: there is nothing to back up (is DATA_DIR or DATABASE_URL right?).',
      );
    }
    await options.afterSnapshot?.();
    const ddl = await schemaDdl(client);
    const events = await client.query<{
      events: string;
      transactions: string;
      commit: string | null;
      prepare: string | null;
    }>(
      `select (select count(*) from es.events)::text as events,
              (select count(distinct transaction_id) from es.events)::text as transactions,
              newest.transaction_id::text as commit, newest.global_position::text as prepare
         from (select 1) one left join lateral (select transaction_id, global_position from es.events
                order by transaction_id desc, global_position desc limit 1) newest on true`,
    );
    const copyText = async (table: string, columns: string[]) => {
      const chunks: Buffer[] = [];
      for await (const chunk of client.query(copyTo(`copy ${qualified(table)} (${columnList(columns)}) to stdout`))) {
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks).toString('utf8');
    };
    const keys: KeysPayload = { masterKey: options.masterKey.toString('base64'), tables: [] };
    for (const { table, columns } of tables.filter((t) => t.table.startsWith(`${KEYS_SCHEMA}.`))) {
      keys.tables.push({ table, columns, copy: await copyText(table, columns) });
    }

    const hash = createHash('sha256');
    let bytes = 0;
    const gzip = createGzip();
    const written = pipeline(
      gzip,
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          bytes += chunk.length;
          done(null, chunk);
        },
      }),
      createWriteStream(partial, { flags: 'r+', mode: 0o600, start: HEADER_BYTES }),
    );
    // A write that fails (a full disk, the folder gone) ends the pipeline at once: the next wait
    // for the compressor meets that error instead of waiting for a drain that never comes.
    written.catch(() => {});
    const write = async (data: string | Buffer) => {
      if (!gzip.write(data)) await Promise.race([once(gzip, 'drain'), written]);
    };
    await write(`${JSON.stringify({ ddl })}\n`);
    if (options.keys === 'included') {
      await write(`${JSON.stringify({ keys: sealKeys(keys, options.passphrase as string).toString('base64') })}\n`);
    }
    const entries: TableEntry[] = [];
    for (const { table, columns } of tables) {
      if (table.startsWith(`${KEYS_SCHEMA}.`)) continue;
      if (LEFT_BEHIND.has(table)) {
        entries.push({ table, columns, rows: 0 });
        continue;
      }
      await write(`${JSON.stringify({ table, columns })}\n`);
      const copy = client.query(copyTo(`copy ${qualified(table)} (${columnList(columns)}) to stdout`));
      for await (const chunk of copy) await write(chunk as Buffer);
      await write('\\.\n');
      entries.push({ table, columns, rows: copy.rowCount });
    }
    // Read last: a sequence is not part of the snapshot, and a value past every row copied is the safe one.
    const sequences: SequenceEntry[] = [];
    for (const { name } of (
      await client.query<{ name: string }>(
        `select format('%I.%I', n.nspname, c.relname) as name from pg_class c
           join pg_namespace n on n.oid = c.relnamespace where ${OUTSIDE_BACKUP} and c.relkind = 'S' order by 1`,
      )
    ).rows) {
      const { rows } = await client.query<{ value: string; called: boolean }>(
        `select last_value::text as value, is_called as called from ${name}`,
      );
      sequences.push({ sequence: name, value: rows[0]!.value, called: rows[0]!.called });
    }
    await client.query('commit');
    await write(`${JSON.stringify({ end: true })}\n`);
    gzip.end();
    await written;

    const row = events.rows[0]!;
    const header: BackupHeader = {
      kind: 'backup',
      format: 1,
      backupId: randomUUID(),
      createdAt: new Date().toISOString(),
      position: row.commit && row.prepare ? { commit: row.commit, prepare: row.prepare } : null,
      events: Number(row.events),
      transactions: Number(row.transactions),
      tables: entries,
      sequences,
      keys: options.keys,
      body: { bytes, sha256: hash.digest('hex') },
    };
    if (options.keys === 'apart') {
      const plain = Buffer.from(JSON.stringify(keys));
      const body = options.passphrase ? sealKeys(keys, options.passphrase) : plain;
      const keysHeader: KeysHeader = {
        kind: 'keys',
        format: 1,
        backupId: header.backupId,
        createdAt: header.createdAt,
        encrypted: Boolean(options.passphrase),
        body: { bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') },
      };
      writeWhole(keysPartial, [headerBlock(keysHeader), body]);
    }
    const fd = openSync(partial, 'r+');
    try {
      writeSync(fd, headerBlock(header), 0, HEADER_BYTES, 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (options.keys === 'apart') renameSync(keysPartial, keysFile);
    renameSync(partial, options.file);
    // The renames are on disk too before the backup is called done (a power cut would undo them otherwise).
    for (const folder of new Set([dirname(options.file), dirname(keysFile)])) {
      if (folder !== dirname(options.file) && options.keys !== 'apart') continue;
      const fd = openSync(folder, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    return header;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    rmSync(partial, { force: true });
    rmSync(keysPartial, { force: true });
    if ((error as { code?: string }).code === '55P03') {
      const holders = await client
        .query<{ who: string }>(
          `select distinct format('pid %s (%s: %s)', a.pid, coalesce(nullif(a.application_name, ''), 'no application name'),
                  left(regexp_replace(a.query, '\\s+', ' ', 'g'), 80)) as who
             from pg_locks l join pg_stat_activity a on a.pid = l.pid
            where l.locktype = 'relation' and l.mode = 'AccessExclusiveLock' and l.granted and a.pid <> pg_backend_pid()
              and l.database = (select oid from pg_database where datname = current_database())`,
        )
        .then((result) => result.rows.map((row) => row.who).join('; '))
        .catch(() => '');
      throw new BackupRefused(
        `The backup waited too long for a table another transaction holds exclusively (${holders || 'it has ended since'}). ` +
          'Nothing was written; run it again once that transaction has ended.',
      );
    }
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

function writeWhole(file: string, parts: Buffer[]) {
  const fd = openSync(file, 'w', 0o600);
  try {
    for (const part of parts) writeSync(fd, part);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
