import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { COMMAND_DATA, COMMAND_MIGRATIONS } from '@agency/command-service/schema';
import type { EventStore, Position, RecordedEvent } from '@agency/platform';
import { migrate, PERSONAL_DATA_MIGRATIONS, SESSIONS_MIGRATIONS } from '@agency/platform/migrations';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

/**
 * Moving a store: every event of `source` into `target` in `$all` order, with its stream,
 * revision, id, type, data and metadata (the time it was first recorded travels in the metadata
 * as `recordedAt`, which both adapters hand back instead of their own). Payloads leave the source
 * upcast, as every read does, and arrive at their current schema version.
 *
 * Resumable: an interrupted copy is run again. A stream's events already in the target (by
 * revision, and they must be the same events, by id) are skipped; the rest are appended at the
 * expected revision, so nothing is written twice even if two copies ran at once. Runs of
 * consecutive events of one stream go in one append.
 */
export type CopyProgress = { read: number; copied: number; skipped: number };

export async function copyStore(
  source: EventStore,
  target: EventStore,
  options: { pageSize?: number; onProgress?: (progress: CopyProgress) => void } = {},
): Promise<CopyProgress> {
  const pageSize = options.pageSize ?? 500;
  const progress: CopyProgress = { read: 0, copied: 0, skipped: 0 };
  /** Per stream: the ids of the events the target holds, by revision. */
  const inTarget = new Map<string, string[]>();
  const targetIds = async (streamId: string) => {
    let ids = inTarget.get(streamId);
    if (!ids) {
      ids = (await target.readStream(streamId)).map((event) => event.id.toLowerCase());
      inTarget.set(streamId, ids);
    }
    return ids;
  };
  let from: Position | undefined;
  for (;;) {
    const page = await source.readAll({ from, limit: pageSize });
    if (page.length === 0) return progress;
    for (const run of runsOfOneStream(page)) {
      const first = run[0] as RecordedEvent;
      const ids = await targetIds(first.streamId);
      const missing: RecordedEvent[] = [];
      for (const event of run) {
        if (event.revision < ids.length) {
          if (ids[event.revision] !== event.id.toLowerCase()) {
            throw new Error(
              `The target's ${event.streamId}@${event.revision} is event ${ids[event.revision]}, not ${event.id}: ` +
                'it holds other events than the source; copy into an empty store',
            );
          }
          progress.skipped++;
        } else if (event.revision === ids.length + missing.length) {
          missing.push(event);
        } else {
          throw new Error(`${event.streamId}@${event.revision} would leave a gap after revision ${ids.length - 1}`);
        }
      }
      if (missing.length > 0) {
        const revision = (missing[0] as RecordedEvent).revision;
        await target.appendToStream(
          first.streamId,
          missing.map((event) => ({ id: event.id, type: event.type, data: event.data, metadata: event.metadata })),
          { expectedRevision: revision === 0 ? 'no_stream' : revision - 1 },
        );
        ids.push(...missing.map((event) => event.id.toLowerCase()));
        progress.copied += missing.length;
      }
      progress.read += run.length;
      options.onProgress?.({ ...progress });
    }
    from = page.at(-1)?.position;
  }
}

/** Consecutive events of one stream, in order. */
function runsOfOneStream(events: RecordedEvent[]): RecordedEvent[][] {
  const runs: RecordedEvent[][] = [];
  for (const event of events) {
    const last = runs.at(-1);
    if (last && last[0]?.streamId === event.streamId) last.push(event);
    else runs.push([event]);
  }
  return runs;
}

/** JSON with object keys sorted, so a checksum does not depend on how a store orders them. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export type StreamSummary = { events: number; sha256: string };

/**
 * Each stream's event count and a sha256 over its events (revision, id, type, data, metadata
 * with recordedAt), read from `$all`; positions differ between stores and are left out.
 */
export async function summariseStore(store: EventStore, pageSize = 1000): Promise<Map<string, StreamSummary>> {
  const hashes = new Map<string, { events: number; hash: ReturnType<typeof createHash> }>();
  let from: Position | undefined;
  for (;;) {
    const page = await store.readAll({ from, limit: pageSize });
    if (page.length === 0) break;
    for (const event of page) {
      let entry = hashes.get(event.streamId);
      if (!entry) {
        entry = { events: 0, hash: createHash('sha256') };
        hashes.set(event.streamId, entry);
      }
      entry.events++;
      entry.hash.update(
        `${stableJson([event.revision, event.id.toLowerCase(), event.type, event.data, event.metadata])}\n`,
      );
    }
    from = page.at(-1)?.position;
  }
  return new Map([...hashes].map(([streamId, { events, hash }]) => [streamId, { events, sha256: hash.digest('hex') }]));
}

export type Verification = {
  streams: number;
  events: number;
  /** Streams whose count or checksum differ, or that only one side has. */
  mismatches: { streamId: string; source?: StreamSummary; target?: StreamSummary }[];
};

/** The copy holds exactly the source's events: per stream, the same count and checksum. */
export async function verifyCopy(source: EventStore, target: EventStore): Promise<Verification> {
  const [from, to] = await Promise.all([summariseStore(source), summariseStore(target)]);
  const mismatches: Verification['mismatches'] = [];
  for (const streamId of new Set([...from.keys(), ...to.keys()])) {
    const a = from.get(streamId);
    const b = to.get(streamId);
    if (a?.events !== b?.events || a?.sha256 !== b?.sha256) mismatches.push({ streamId, source: a, target: b });
  }
  let events = 0;
  for (const summary of from.values()) events += summary.events;
  return { streams: from.size, events, mismatches };
}

/**
 * What the product keeps outside the log and a copy must take along (`--to postgres://…`): the
 * tables of the command side (`auth`, `command`, `invoice`) and the personal-data keys (`pii`).
 * Without them a product started on the copy would number invoices from 1 again, give out
 * usernames and prefixes already taken, make a second admin (whose username collides in the
 * users read model), re-run or skip its reactors, and read every personal field as erased.
 * Left behind: sessions (everyone signs in again on the copy) and the counters of failed logins
 * and reset requests, which only ever look back a day.
 */
export const COMMAND_SIDE_SCHEMAS = ['auth', 'command', 'invoice', 'pii'] as const;
export const LEFT_BEHIND = new Set(['auth.sessions', 'auth.login_failures', 'auth.reset_requests']);

/**
 * Tables of older releases that this code's migrations retire: a source that was not started on
 * this code since still has them, and they stay behind. (command.migrations held the one data
 * migration's record; without it the target runs that migration again, which adds nothing twice.)
 */
const RETIRED = new Set(['command.migrations']);

/** Made in the target by the product's own migrations, as its start would (docs/migrations.md). */
const makeTargetTables = (to: pg.Client) =>
  migrate(to, PERSONAL_DATA_MIGRATIONS, SESSIONS_MIGRATIONS, COMMAND_MIGRATIONS);

/**
 * The source's data migrations that were done go with the copy: they worked on the events, which
 * the target now has. (Its schema migrations are the target's own, made by this code.)
 */
async function copyDataMigrationRecords(from: pg.Client, to: pg.Client) {
  const ready = await from.query("select to_regclass('migrations.applied') is not null as ready");
  if (!ready.rows[0].ready) return;
  const done = await from.query<{ name: string; applied_at: Date }>(
    'select name, applied_at from migrations.applied where owner = $1',
    [COMMAND_DATA],
  );
  for (const { name, applied_at } of done.rows) {
    await to.query(
      'insert into migrations.applied (owner, name, applied_at) values ($1, $2, $3) on conflict do nothing',
      [COMMAND_DATA, name, applied_at],
    );
  }
}

export type CopiedTable = { table: string; rows: number };

/**
 * Positions the command side keeps, each the position of an event of the source (or a place
 * between two), as the position in the target of the last event at or before it: a reactor's
 * checkpoint, the position a stored command answer names. Events keep their ids across a copy,
 * so the event is found in the target by its id. Kept in a temporary table of the target session.
 */
async function stagePositionMap(from: pg.Client, to: pg.Client) {
  const hasCommandTables = await from.query(
    "select to_regclass('command.reactor_checkpoints') as reactors, to_regclass('command.processed_commands') as answers",
  );
  const { reactors, answers } = hasCommandTables.rows[0];
  const wanted = [
    reactors ? 'select commit_position as c, prepare_position as p from command.reactor_checkpoints' : undefined,
    answers
      ? `select split_part(response->>'position', '/', 1)::bigint, split_part(response->>'position', '/', 2)::bigint
           from command.processed_commands where response->>'position' ~ '^[0-9]+/[0-9]+$'`
      : undefined,
  ].filter(Boolean);
  await to.query(
    'create temporary table copy_positions (c bigint not null, p bigint not null, event_id uuid, primary key (c, p))',
  );
  if (wanted.length === 0) return;
  await pipeline(
    from.query(
      copyTo(`copy (
        select w.c, w.p, (select e.event_id from es.events e
                           where (e.transaction_id, e.global_position) <= (w.c::text::xid8, w.p)
                           order by e.transaction_id desc, e.global_position desc limit 1)
          from (${wanted.join(' union ')}) w) to stdout`),
    ),
    to.query(copyFrom('copy copy_positions (c, p, event_id) from stdin')),
  );
  const missing = await to.query(
    `select count(*)::int as n from copy_positions m
      where m.event_id is not null and not exists (select 1 from es.events e where e.event_id = m.event_id)`,
  );
  if (missing.rows[0].n > 0) {
    throw new Error(
      'The source has moved on since its events were copied (its reactors or commands are past the last event copied): ' +
        'stop the product on the source and run the copy again',
    );
  }
}

/** What a copied table's rows need in the target: positions of the source made positions of the target. */
export const AFTER_LOAD: Record<string, string> = {
  'command.reactor_checkpoints': `
    update command.reactor_checkpoints r
       set commit_position = coalesce(e.transaction_id::text::bigint, 0), prepare_position = coalesce(e.global_position, 0)
      from copy_positions m left join es.events e on e.event_id = m.event_id
     where m.c = r.commit_position and m.p = r.prepare_position`,
  'command.processed_commands': `
    update command.processed_commands a
       set response = jsonb_set(a.response, '{position}',
             to_jsonb(coalesce(e.transaction_id::text || '/' || e.global_position, '0/0')))
      from copy_positions m left join es.events e on e.event_id = m.event_id
     where a.response->>'position' = m.c || '/' || m.p`,
};

/**
 * Copies the command side and the keys (see COMMAND_SIDE_SCHEMAS) into a PostgreSQL target whose
 * events were copied already: the target's tables are made by the product's own migrations, then each is
 * replaced, in one transaction, by the source's rows (so a copy run again takes the source as it
 * is then), positions mapped as the events' positions were.
 */
export async function copyCommandSide(fromUrl: string, toUrl: string): Promise<CopiedTable[]> {
  const from = new pg.Client({ connectionString: fromUrl });
  const to = new pg.Client({ connectionString: toUrl });
  try {
    await from.connect();
    await to.connect();
    // One snapshot of the source for every table, so the tables agree with each other.
    await from.query('begin isolation level repeatable read read only');
    await makeTargetTables(to);
    await copyDataMigrationRecords(from, to);
    await stagePositionMap(from, to);
    const tables = await from.query<{ table: string }>(
      `select table_schema || '.' || table_name as table from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema = any($1) order by 1`,
      [COMMAND_SIDE_SCHEMAS],
    );
    const columnsOf = async (client: pg.Client, table: string) =>
      (
        await client.query<{ name: string }>(
          `select column_name as name from information_schema.columns
            where table_schema || '.' || table_name = $1 and is_generated = 'NEVER' order by ordinal_position`,
          [table],
        )
      ).rows.map((row) => row.name);
    const copied: CopiedTable[] = [];
    for (const { table } of tables.rows) {
      if (LEFT_BEHIND.has(table) || RETIRED.has(table)) continue;
      const theirs = new Set(await columnsOf(to, table));
      if (theirs.size === 0) {
        throw new Error(`The source has a table ${table} that this copy does not know how to make in the target`);
      }
      const columns = (await columnsOf(from, table)).filter((column) => theirs.has(column));
      const list = columns.map((column) => pg.escapeIdentifier(column)).join(', ');
      const [schema, name] = table.split('.') as [string, string];
      const qualified = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
      await to.query('begin');
      try {
        await to.query(`delete from ${qualified}`);
        await pipeline(
          from.query(copyTo(`copy (select ${list} from ${qualified}) to stdout`)),
          to.query(copyFrom(`copy ${qualified} (${list}) from stdin`)),
        );
        const after = AFTER_LOAD[table];
        if (after) await to.query(after);
        const count = await to.query(`select count(*)::int as n from ${qualified}`);
        await to.query('commit');
        copied.push({ table, rows: count.rows[0].n });
      } catch (error) {
        await to.query('rollback').catch(() => {});
        throw error;
      }
    }
    await from.query('commit');
    return copied;
  } finally {
    await from.end().catch(() => {});
    await to.end().catch(() => {});
  }
}

/**
 * The time each copied event was first recorded, in the target's own column too (the adapter
 * already answers it from the metadata): the activity log finds events by time through that
 * column's index.
 */
export async function keepRecordedTimes(toUrl: string): Promise<number> {
  const to = new pg.Client({ connectionString: toUrl });
  try {
    await to.connect();
    const updated = await to.query(
      `update es.events set recorded_at = (metadata->>'recordedAt')::timestamptz
        where metadata ? 'recordedAt' and recorded_at is distinct from (metadata->>'recordedAt')::timestamptz`,
    );
    return updated.rowCount ?? 0;
  } finally {
    await to.end().catch(() => {});
  }
}
