import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { unwrapDataKey, wrapDataKey } from '@agency/platform/personal-data';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import {
  type BackupHeader,
  BackupRefused,
  columnList,
  HEADER_BYTES,
  type KeysPayload,
  openKeys,
  qualified,
  readHeader,
  type TableEntry,
} from './backup-format';
import { AFTER_LOAD, LEFT_BEHIND } from './copy-store';
import type { ErasedSubject } from './erased-subjects';

export type PreparedRestore = { file: string; header: BackupHeader; ddl: string[]; keys: KeysPayload };

/** The body's lines, decompressed (a damaged body fails here, its checksum having been checked first). */
function bodyLines(file: string) {
  const input = createReadStream(file, { start: HEADER_BYTES }).pipe(createGunzip());
  return { lines: createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY }), close: () => input.destroy() };
}

/**
 * Everything a restore checks before it touches the target: the file is a backup of this format,
 * whole (its checksum), and its keys open (the passphrase; an apart keys file of this backup or a
 * later one). Refusals are `BackupRefused`, with what to do.
 */
export async function prepareRestore(options: {
  file: string;
  keysFile?: string;
  passphrase?: string;
}): Promise<PreparedRestore> {
  const header = await readHeader(options.file, 'backup');
  const { lines, close } = bodyLines(options.file);
  let ddl: string[] | undefined;
  let sealed: string | undefined;
  // The whole body is read once here: the tables, columns and row counts it holds must be those its
  // header lists (a header that says otherwise would restore a store other than it claims).
  const found: TableEntry[] = [];
  let ended = false;
  try {
    let inTable: TableEntry | undefined;
    for await (const line of lines) {
      if (inTable) {
        if (line === '\\.') inTable = undefined;
        else inTable.rows++;
        continue;
      }
      let section: { ddl?: string[]; keys?: string; table?: string; columns?: string[]; end?: boolean };
      try {
        section = JSON.parse(line);
      } catch {
        throw new BackupRefused(`${options.file} is damaged: a section of its body does not read.`);
      }
      if (section.ddl) ddl = section.ddl;
      else if (section.keys) sealed = section.keys;
      else if (section.table && section.columns) {
        inTable = { table: section.table, columns: section.columns, rows: 0 };
        found.push(inTable);
      } else if (section.end) {
        ended = true;
        break;
      }
    }
  } catch (error) {
    if (error instanceof BackupRefused) throw error;
    throw new BackupRefused(`${options.file} is damaged: its body does not decompress (${(error as Error).message}).`);
  } finally {
    close();
  }
  if (!ddl || !ended || (header.keys === 'included' && !sealed))
    throw new BackupRefused(`${options.file} is damaged: it lacks its schema, its keys or its end.`);
  const listed = header.tables.filter((t) => !LEFT_BEHIND.has(t.table));
  const describe = (tables: TableEntry[]) =>
    tables.map((t) => `${t.table} (${t.columns.join(', ')}): ${t.rows} rows`).join('; ');
  if (describe(listed) !== describe(found) || header.tables.some((t) => LEFT_BEHIND.has(t.table) && t.rows !== 0)) {
    throw new BackupRefused(
      `${options.file} is damaged: its header lists other tables or rows than its body holds ` +
        `(header: ${describe(listed)}; body: ${describe(found)}). Nothing was restored from it.`,
    );
  }
  let keys: KeysPayload;
  if (header.keys === 'included') {
    keys = openKeys(Buffer.from(sealed as string, 'base64'), options.passphrase);
  } else {
    const keysFile = options.keysFile ?? `${options.file}.keys`;
    const keysHeader = await readHeader(keysFile, 'keys');
    if (keysHeader.backupId !== header.backupId && keysHeader.createdAt < header.createdAt) {
      throw new BackupRefused(
        `${keysFile} holds the keys of an earlier backup (${keysHeader.createdAt}) than ${options.file} (${header.createdAt}): ` +
          'data subjects added in between would have no key. Give the keys file of this backup or of a later one (--keys-file).',
      );
    }
    const body = readFileSync(keysFile).subarray(HEADER_BYTES);
    keys = keysHeader.encrypted ? openKeys(body, options.passphrase) : JSON.parse(body.toString('utf8'));
  }
  return { file: options.file, header, ddl, keys };
}

export type RestoreOutcome = {
  tables: number;
  rows: number;
  events: number;
  /** Subjects erased after the backup was made, whose keys the restore shredded again. */
  erasedAgain: string[];
};

type NextLine = () => Promise<string | undefined>;

/** A table's rows: COPY text whole, or the body's lines up to the `\.` that ends them. */
async function copyInto(client: pg.Client, table: string, columns: string[], rows: NextLine | string) {
  const sink = client.query(copyFrom(`copy ${qualified(table)} (${columnList(columns)}) from stdin`));
  const finished = once(sink, 'finish');
  if (typeof rows === 'string') {
    sink.end(rows);
  } else {
    for (let line = await rows(); line !== '\\.'; line = await rows()) {
      if (line === undefined) throw new BackupRefused(`The backup ends inside the rows of ${table}.`);
      if (!sink.write(`${line}\n`)) await once(sink, 'drain');
    }
    sink.end();
  }
  await finished;
  return sink.rowCount;
}

/** Held by a restore's transaction (docs/backups.md). */
const RESTORE_LOCK = 7412002;

async function refuseNonEmpty(client: pg.Client) {
  // From the catalog, not information_schema, which lists only the tables this user may use.
  const present = await client.query<{ name: string }>(
    `select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'f') and n.nspname not in ('pg_catalog', 'information_schema')
        and n.nspname not like 'pg\\_%' order by 1 limit 4`,
  );
  if (present.rows.length > 0) {
    throw new BackupRefused(
      `The target database is not empty (it holds ${present.rows.map((r) => r.name).join(', ')}…): ` +
        'restore into an empty DATA_DIR or an empty database (DATABASE_URL). Nothing was changed.',
    );
  }
}

/** The smallest normal transaction id (0–2 are PostgreSQL's own), and room left for transactions meanwhile. */
const FIRST_ID = 3;
const HEADROOM = 1000;

/**
 * Loads a prepared backup into an empty database in one transaction (a failure leaves it empty):
 * the source's schema, every table's rows, the sequences, the keys (rewrapped under this
 * target's master key), the events' positions renumbered below this cluster's transaction ids
 * (the reactors' checkpoints and kept command answers mapped with them, as `store:copy` maps
 * them), and the erasures made since the backup applied again (docs/backups.md).
 */
export async function restoreBackup(
  prepared: PreparedRestore,
  options: { databaseUrl: string; masterKey: Buffer; erased: ErasedSubject[] },
): Promise<RestoreOutcome> {
  const { header, ddl, keys } = prepared;
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'agency-restore' });
  await client.connect();
  try {
    await refuseNonEmpty(client);
    // The events keep their order under new ids 3, 4, …, which must all be below the ids this cluster hands out.
    const needed = FIRST_ID + header.transactions + HEADROOM;
    const next = Number((await client.query('select pg_snapshot_xmax(pg_current_snapshot())::text as n')).rows[0].n);
    if (next < needed) {
      await client.query(
        `do $$ begin for i in 1..${needed - next} loop perform pg_current_xact_id(); commit; end loop; end $$`,
      );
    }
    await client.query('begin');
    try {
      // Two restores into one target at once: the second waits here, then finds the first's tables.
      await client.query('select pg_advisory_xact_lock($1)', [RESTORE_LOCK]);
      await refuseNonEmpty(client);
      await client.query('set local check_function_bodies = off');
      for (const statement of ddl) await client.query(statement);
      const { lines, close } = bodyLines(prepared.file);
      let rows = 0;
      // One reader of the lines for the sections and the rows inside them (a loop's break would close it).
      const reader = lines[Symbol.asyncIterator]();
      const nextLine: NextLine = async () => {
        const next = await reader.next();
        return next.done ? undefined : next.value;
      };
      try {
        for (let line = await nextLine(); ; line = await nextLine()) {
          if (line === undefined) throw new BackupRefused(`${prepared.file} ends before its last section.`);
          const section = JSON.parse(line) as { table?: string; columns?: string[]; end?: boolean };
          if (section.end) break;
          if (section.table && section.columns) {
            const copied = await copyInto(client, section.table, section.columns, nextLine);
            if (copied !== header.tables.find((t) => t.table === section.table)?.rows) {
              throw new BackupRefused(
                `${prepared.file} is damaged: ${section.table} loads other rows than its header lists.`,
              );
            }
            rows += copied;
          }
        }
      } finally {
        close();
      }
      for (const { table, columns, copy } of keys.tables) rows += await copyInto(client, table, columns, copy);
      for (const { sequence, value, called } of header.sequences) {
        await client.query('select setval($1::regclass, $2::bigint, $3)', [sequence, value, called]);
      }
      await rewrapKeys(client, Buffer.from(keys.masterKey, 'base64'), options.masterKey);
      await renumberPositions(client, header, prepared.file);
      const erasedAgain = await eraseAgain(client, options.erased);
      await client.query('commit');
      return { tables: header.tables.length + keys.tables.length, rows, events: header.events, erasedAgain };
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    }
  } finally {
    await client.end().catch(() => {});
  }
}

/** The data keys, wrapped by the backup's master key, wrapped by this target's instead (when they differ). */
async function rewrapKeys(client: pg.Client, from: Buffer, to: Buffer) {
  if (from.equals(to)) return;
  const { rows } = await client.query<{ key_id: string; key: Buffer }>(
    'select key_id, key from pii.subject_keys where key is not null',
  );
  const rewrapped = rows.map((row) => wrapDataKey(to, unwrapDataKey(from, row.key, row.key_id), row.key_id));
  await client.query(
    `update pii.subject_keys k set key = r.key from unnest($1::text[], $2::bytea[]) as r (key_id, key)
      where k.key_id = r.key_id`,
    [rows.map((row) => row.key_id), rewrapped],
  );
}

/**
 * `$all` positions are the source cluster's transaction ids: each distinct id becomes 3, 4, … in
 * order (events of one transaction keep one id). What holds a position (a reactor's checkpoint,
 * a kept command answer) is moved to the same event's new position first (copy-store.ts, AFTER_LOAD).
 */
async function renumberPositions(client: pg.Client, header: BackupHeader, file: string) {
  const loaded = (
    await client.query<{ events: string; transactions: string }>(
      'select count(*)::text as events, count(distinct transaction_id)::text as transactions from es.events',
    )
  ).rows[0]!;
  // The ids made room for were counted from the header: a body with more would be renumbered into ids to come.
  if (Number(loaded.events) !== header.events || Number(loaded.transactions) !== header.transactions) {
    throw new BackupRefused(
      `${file} is damaged: it holds ${loaded.events} events of ${loaded.transactions} transactions, ` +
        `its header ${header.events} of ${header.transactions}. Nothing was restored from it.`,
    );
  }
  const own = BigInt((await client.query('select pg_current_xact_id()::text as own')).rows[0].own);
  if (BigInt(FIRST_ID + header.transactions) >= own)
    throw new Error('This cluster has handed out too few transaction ids');
  const holders = [
    (await client.query("select to_regclass('command.reactor_checkpoints') is not null as ok")).rows[0].ok
      ? 'select commit_position as c, prepare_position as p from command.reactor_checkpoints'
      : undefined,
    (await client.query("select to_regclass('command.processed_commands') is not null as ok")).rows[0].ok
      ? `select split_part(response->>'position', '/', 1)::bigint, split_part(response->>'position', '/', 2)::bigint
           from command.processed_commands where response->>'position' ~ '^[0-9]+/[0-9]+$'`
      : undefined,
  ].filter(Boolean);
  await client.query(
    'create temporary table copy_positions (c bigint not null, p bigint not null, event_id uuid, primary key (c, p)) on commit drop',
  );
  if (holders.length > 0) {
    await client.query(
      `insert into copy_positions (c, p, event_id)
       select w.c, w.p, (select e.event_id from es.events e
                          where (e.transaction_id, e.global_position) <= (w.c::text::xid8, w.p)
                          order by e.transaction_id desc, e.global_position desc limit 1)
         from (${holders.join(' union ')}) w`,
    );
  }
  await client.query(
    `update es.events e set transaction_id = (r.n + $1::int - 1)::text::xid8
       from (select old, dense_rank() over (order by old) as n from (select distinct transaction_id as old from es.events) d) r
      where e.transaction_id = r.old`,
    [FIRST_ID],
  );
  for (const [table, update] of Object.entries(AFTER_LOAD)) {
    if ((await client.query('select to_regclass($1) is not null as ok', [table])).rows[0].ok)
      await client.query(update);
  }
}

/**
 * Erasures made after the backup, from the erased-subjects record: each subject's key is shredded
 * again, as the vault shreds (the row kept, its bytes gone), and a subject the backup never knew
 * gets a shredded row, so nothing personal can be recorded for it. Answers the subjects whose
 * keys were live in the backup.
 */
async function eraseAgain(client: pg.Client, erased: ErasedSubject[]): Promise<string[]> {
  const again: string[] = [];
  for (const { subject, at } of erased) {
    const { rows } = await client.query<{ live: boolean }>(
      'select key is not null as live from pii.subject_keys where subject_id = $1',
      [subject],
    );
    await client.query(
      `insert into pii.subject_keys (subject_id, key_id, key, shredded_at) values ($1, $2, null, $3)
       on conflict (subject_id) do update set key = null, shredded_at = coalesce(pii.subject_keys.shredded_at, $3)`,
      [subject, randomUUID(), at],
    );
    if (rows[0]?.live) again.push(subject);
  }
  return again;
}
