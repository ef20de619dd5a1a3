import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';

/**
 * Row versions, for the views that can be seen as of a past moment (audit/as-of.ts). Beside its
 * current table, such a read model keeps every version each row has had, each with the position
 * of the event that wrote it (`valid_from_*`): a version holds from there until the next version
 * of the same row, so a version table is only ever appended to (no update, no unique index: a
 * rebuild loads it like a log and sorts its indexes once, at the end). A removal is a version too
 * (`removed`), so that every event that changed a row leaves one, and each version keeps the time
 * its event was recorded (`recorded_at`), which maps a moment to a position.
 *
 * A version table has the current table's columns (the key's not null, the others nullable: a
 * removal has no values) and these: `removed boolean not null, valid_from_commit bigint not null,
 * valid_from_prepare bigint not null, recorded_at timestamptz not null`, an index on the key and
 * the position (the next version of a row is found at once) and one on `recorded_at`. Nothing in
 * it is a sequence or a clock: a rebuild writes the very same rows, event by event or a batch at once.
 */
export type VersionTable = {
  /** The version table (e.g. `engagement_versions`). */
  name: string;
  /** The columns that name a row, with their SQL types. */
  key: [column: string, type: string][];
  /** The current table's other columns, with their SQL types. */
  values: [column: string, type: string][];
};

/** One version: the row named by `key` as `event` left it, its values in `values`' order; null: removed. */
export type Version = { key: unknown[]; values: unknown[] | null; event: RecordedEvent };

const position = (event: RecordedEvent) => [event.position.commit.toString(), event.position.prepare.toString()];

/** Writes `versions` (any number per row, in the order of their events), in one statement. */
export async function writeVersions(sql: pg.ClientBase, table: VersionTable, versions: Version[]) {
  if (versions.length === 0) return;
  const columns = [...table.key, ...table.values];
  const n = columns.length;
  await sql.query(
    `insert into ${table.name} (${columns.map(([column]) => column).join(', ')}, removed,
       valid_from_commit, valid_from_prepare, recorded_at)
     select * from unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}, $${n + 1}::boolean[],
       $${n + 2}::bigint[], $${n + 3}::bigint[], $${n + 4}::timestamptz[])`,
    [
      ...table.key.map((_, i) => versions.map((v) => v.key[i])),
      ...table.values.map((_, i) => versions.map((v) => (v.values ? v.values[i] : null))),
      versions.map((v) => v.values === null),
      versions.map((v) => position(v.event)[0]),
      versions.map((v) => position(v.event)[1]),
      versions.map((v) => v.event.metadata.recordedAt),
    ],
  );
}

/**
 * A version of one row as the current table holds it just after `event` was applied to it (a
 * removal when it holds none): for projections that apply their events one at a time, so the
 * current row is what the version must say, and no rule is written twice.
 */
export async function snapshotVersion(
  sql: pg.ClientBase,
  table: VersionTable,
  current: string,
  key: unknown[],
  event: RecordedEvent,
) {
  const keys = table.key.map(([column]) => column);
  const [commit, prepare] = position(event);
  const n = keys.length;
  await sql.query(
    `insert into ${table.name} (${[...keys, ...table.values.map(([column]) => column)].join(', ')}, removed,
       valid_from_commit, valid_from_prepare, recorded_at)
     select ${keys.map((column) => `k.${column}`).join(', ')}, ${table.values.map(([column]) => `c.${column}`).join(', ')},
            c.${keys[0]} is null, $${n + 1}::bigint, $${n + 2}::bigint, $${n + 3}::timestamptz
       from (select ${table.key.map(([column, type], i) => `$${i + 1}::${type} as ${column}`).join(', ')}) k
       left join ${current} c on ${keys.map((column) => `c.${column} = k.${column}`).join(' and ')}`,
    [...key, commit, prepare, event.metadata.recordedAt],
  );
}
