import { type EventUpcaster, upcastEvent } from '@agency/contracts';
import type pg from 'pg';
import type { Observable } from 'rxjs';
import { type EventStore, type Position, type RecordedEvent, START, unreadableEvent } from '../port';
import type { EventRow } from './postgres-event-store';

/** The store's row, its recorded time as text (see below) and its metadata maybe absent. */
type Row = Omit<EventRow, 'metadata' | 'recorded_at'> & {
  metadata: RecordedEvent['metadata'] | null;
  recorded_at: string;
};

/**
 * The recorded time as `Date.prototype.toISOString` writes it (milliseconds, truncated as
 * postgres-date truncates), made by the database: parsing a Date per event and formatting it back
 * was 1.7 % of a rebuild's profile.
 */
const RECORDED_AT_ISO = `to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const notForReading = (what: string) => () => {
  throw new Error(`A rebuild's reading of the PostgreSQL store cannot ${what}`);
};

/**
 * A rebuild's reading of the PostgreSQL store's `$all`: only the events of `types`, and none
 * after `upTo`, a position the caller read at or below the head (`head()`, below the horizon of
 * all-horizon.ts), so no event can still appear before it and no horizon is needed here. Events
 * of other types are not read at all, so a rebuild whose projections handle few of the types in
 * the store (a million lessons applied in the database itself) neither ships nor decodes the rest.
 * Each event is read as the store reads it (upcast to its type's current version; one that cannot
 * be is handed out unreadable); its recorded time comes as text. Only `readAll` reads: wrap it
 * (personal data) as the store itself is wrapped.
 */
export function eventsOfTypesUpTo(
  pool: pg.Pool,
  types: readonly string[],
  upTo: Position,
  upcast: EventUpcaster = upcastEvent,
): EventStore {
  const toRecorded = (row: Row): RecordedEvent => {
    const stored = row.metadata?.schemaVersion;
    // An event copied from another store (npm run store:copy) keeps the time it was first recorded.
    const recordedAt = typeof row.metadata?.recordedAt === 'string' ? row.metadata.recordedAt : row.recorded_at;
    const at = (version: number | undefined) => ({
      id: row.event_id,
      streamId: row.stream_id,
      revision: Number(row.stream_revision),
      position: { commit: BigInt(row.commit_position), prepare: BigInt(row.global_position) },
      type: row.event_type,
      metadata: { ...(row.metadata as RecordedEvent['metadata']), schemaVersion: version, recordedAt },
    });
    try {
      const current = upcast(row.event_type, stored, row.data);
      return { ...at(current.version), data: current.data };
    } catch (error) {
      return unreadableEvent(at(stored), error);
    }
  };
  // Where each event to read is, in order, found once: one pass over the table and a sort of two
  // numbers an event (16 bytes an event held). Reading each batch by an index scan in global
  // order instead went through every event of the table, of every type, fetching each one to look
  // at its type (2.2 s of the database's time at a million events; this and the batches by key, 0.5 s).
  let found: Promise<{ commits: BigInt64Array; prepares: BigInt64Array }> | undefined;
  const positions = () => {
    found ??= pool
      .query<[string, string]>({
        // The text cast gets its own name: ORDER BY transaction_id would otherwise sort the text.
        text: `select transaction_id::text as commit, global_position as prepare from es.events
                where event_type = any($3::text[]) and (transaction_id, global_position) <= ($1::text::xid8, $2::bigint)
                order by transaction_id, global_position`,
        values: [upTo.commit.toString(), upTo.prepare.toString(), types],
        rowMode: 'array',
      })
      .then(({ rows }) => ({
        commits: BigInt64Array.from(rows, ([commit]) => BigInt(commit)),
        prepares: BigInt64Array.from(rows, ([, prepare]) => BigInt(prepare)),
      }));
    return found;
  };
  /** The index of the first position after `from` (binary search). */
  const after = ({ commits, prepares }: { commits: BigInt64Array; prepares: BigInt64Array }, from: Position) => {
    let [low, high] = [0, commits.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      const commit = commits[middle] as bigint;
      const beyond = commit > from.commit || (commit === from.commit && (prepares[middle] as bigint) > from.prepare);
      if (beyond) high = middle;
      else low = middle + 1;
    }
    return low;
  };
  return {
    async readAll(options: { from?: Position; limit?: number } = {}) {
      if (types.length === 0) return [];
      const order = await positions();
      const first = after(order, options.from ?? START);
      const batch = order.prepares.subarray(first, first + (options.limit ?? 1000));
      if (batch.length === 0) return [];
      const result = await pool.query<Row>(
        `select global_position, transaction_id::text as commit_position, stream_id, stream_revision, event_id,
                event_type, data, metadata, ${RECORDED_AT_ISO} as recorded_at
           from es.events
          where global_position = any($1::bigint[])
          order by transaction_id, global_position`,
        [Array.from(batch, String)],
      );
      return result.rows.map(toRecorded);
    },
    head: async () => upTo,
    readStream: notForReading('read a stream'),
    appendToStream: notForReading('append'),
    subscribeToAll: notForReading('subscribe') as () => Observable<RecordedEvent>,
    close: async () => {},
  };
}
