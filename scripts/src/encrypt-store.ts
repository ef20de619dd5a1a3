import { personalDataRules } from '@agency/contracts';
import { migrateEventStore } from '@agency/platform';
import {
  decryptPersonalFields,
  encryptPersonalFields,
  isSealed,
  type PersonalDataVault,
} from '@agency/platform/personal-data';
import type pg from 'pg';
import { stableJson } from './copy-store';
import { dropReadModels } from './store-positions';

/** es.events as rows, each as JSON (transaction ids and times as text, so nothing is rounded). */
type Row = { global_position: number; stream_id: string; event_type: string; data: Record<string, unknown> } & Record<
  string,
  unknown
>;

const NEW_TABLE = 'es.events_encrypted';

export type EncryptOutcome = { events: number; encrypted: number; streams: number; dropped: string[] };

/** Every personal field of an event (by `personalDataRules`) that is present and not sealed. */
export function clearPersonalFields(type: string, data: Record<string, unknown>): string[] {
  const rule = personalDataRules[type];
  if (!rule) return [];
  return rule.fields
    .filter((field) => {
      let node: unknown = data;
      for (const step of field.path) node = (node as Record<string, unknown> | undefined)?.[step];
      return node !== undefined && node !== null && !isSealed(node);
    })
    .map((field) => `${type}.${field.path.join('.')}`);
}

async function pageOf(sql: Pick<pg.Pool, 'query'>, table: string, after: number, size: number): Promise<Row[]> {
  const found = await sql.query<{ row: Row }>(
    `select to_jsonb(e) as row from ${table} e where global_position > $1 order by global_position limit $2`,
    [after, size],
  );
  return found.rows.map(({ row }) => row);
}

/**
 * `npm run store:encrypt`, the work: every event of es.events into a new table beside it, with
 * the personal fields sealed under their subjects' keys (the vault makes the keys) and every
 * other column as it was (position, transaction id, stream, revision, id, type, metadata,
 * recorded time). Then the copy is verified (counts, per stream, and each event: the same
 * columns, its sealed data opening to the very payload it had, no personal field left in clear),
 * and swapped in in one transaction that also drops the read models (the next start rebuilds
 * them) and the clear table: a backup of clear personal data would defeat the purpose. The
 * product must be stopped (appends arriving meanwhile abort the swap).
 */
export async function encryptStore(
  pool: pg.Pool,
  vault: PersonalDataVault,
  options: { pageSize?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<EncryptOutcome> {
  const pageSize = options.pageSize ?? 1000;
  await migrateEventStore(pool);
  const total = Number((await pool.query('select count(*) from es.events')).rows[0].count);
  await pool.query(`drop table if exists ${NEW_TABLE}`);
  await pool.query(`create table ${NEW_TABLE} (like es.events including all)`);
  let encrypted = 0;
  let done = 0;
  for (let after = 0; ; ) {
    const page = await pageOf(pool, 'es.events', after, pageSize);
    if (page.length === 0) break;
    const sealed = [];
    for (const row of page) {
      const data = await encryptPersonalFields(vault, row.event_type, row.data);
      if (data !== row.data) encrypted++;
      sealed.push({ ...row, data });
    }
    await pool.query(
      `insert into ${NEW_TABLE} overriding system value
       select * from jsonb_populate_recordset(null::${NEW_TABLE}, $1::jsonb)`,
      [JSON.stringify(sealed)],
    );
    after = (page.at(-1) as Row).global_position;
    done += page.length;
    options.onProgress?.(done, total);
  }
  await pool.query(
    `select setval(pg_get_serial_sequence('${NEW_TABLE}', 'global_position'),
                   coalesce((select max(global_position) from ${NEW_TABLE}), 0) + 1, false)`,
  );
  const streams = await verifyEncryptedCopy(pool, vault, pageSize);

  const client = await pool.connect();
  const dropped: string[] = [];
  try {
    await client.query('begin');
    await client.query('lock table es.events in exclusive mode');
    const now = Number((await client.query('select count(*) from es.events')).rows[0].count);
    if (now !== done) throw new Error('Events were appended during the copy: stop the product and run it again');
    await client.query('drop table es.events');
    await client.query(`alter table ${NEW_TABLE} rename to events`);
    // The global-order index by its usual name, so the schema's `create index if not exists` finds it.
    const index = await client.query<{ indexname: string }>(
      `select indexname from pg_indexes where schemaname = 'es' and tablename = 'events'
          and indexdef like '%(transaction_id, global_position)%'`,
    );
    const name = index.rows[0]?.indexname;
    if (name && name !== 'events_in_global_order') {
      await client.query(`alter index es."${name}" rename to events_in_global_order`);
    }
    // The same for the recorded-time index (the activity log's), or the next start makes a second one.
    const byTime = await client.query<{ indexname: string }>(
      `select indexname from pg_indexes where schemaname = 'es' and tablename = 'events'
          and indexdef like '%(recorded_at, global_position)%'`,
    );
    const timeName = byTime.rows[0]?.indexname;
    if (timeName && timeName !== 'events_recorded_at') {
      await client.query(`alter index es."${timeName}" rename to events_recorded_at`);
    }
    dropped.push(...(await dropReadModels(client)));
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    await pool.query(`drop table if exists ${NEW_TABLE}`);
    throw error;
  } finally {
    client.release();
  }
  return { events: done, encrypted, streams, dropped };
}

/**
 * The copy against the original, event by event in position order, and per stream (count):
 * every column the same but the payload, which opens to the original payload and has no
 * personal field left in clear. Answers the number of streams; throws at the first difference.
 */
async function verifyEncryptedCopy(pool: pg.Pool, vault: PersonalDataVault, pageSize: number): Promise<number> {
  const counts = await pool.query<{ same: boolean; streams: number }>(
    `select (select array_agg(row(stream_id, n) order by stream_id) from
               (select stream_id, count(*) n from es.events group by 1) a)
          is not distinct from
            (select array_agg(row(stream_id, n) order by stream_id) from
               (select stream_id, count(*) n from ${NEW_TABLE} group by 1) b) as same,
            (select count(distinct stream_id)::int from es.events) as streams`,
  );
  if (!counts.rows[0]?.same) throw new Error('The copy does not hold the same streams and counts as es.events');
  for (let after = 0; ; ) {
    const [original, copy] = await Promise.all([
      pageOf(pool, 'es.events', after, pageSize),
      pageOf(pool, NEW_TABLE, after, pageSize),
    ]);
    if (original.length !== copy.length) throw new Error(`The copy differs from es.events after position ${after}`);
    if (original.length === 0) return counts.rows[0].streams;
    for (const [index, row] of original.entries()) {
      const { data: sealed, ...columns } = copy[index] as Row;
      const { data, ...expected } = row;
      const where = `${row.stream_id}@${String(row.stream_revision)}`;
      if (stableJson(columns) !== stableJson(expected)) throw new Error(`${where}: its columns differ in the copy`);
      const clear = clearPersonalFields(row.event_type, sealed);
      if (clear.length > 0) throw new Error(`${where}: ${clear.join(', ')} still in clear`);
      const opened = await decryptPersonalFields(vault, row.event_type, sealed);
      if (stableJson(opened) !== stableJson(data))
        throw new Error(`${where}: its payload does not open to the original`);
    }
    after = (original.at(-1) as Row).global_position;
  }
}
