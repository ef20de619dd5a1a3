import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Observable } from 'rxjs';
import {
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  START,
  WrongExpectedRevision,
} from '../port';
import { EVENT_STORE_SCHEMA } from './schema';

export const EVENTS_CHANNEL = 'es_events';

type EventRow = {
  global_position: string;
  commit_position: string;
  stream_id: string;
  stream_revision: string;
  event_id: string;
  event_type: string;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date;
};

// The text cast gets its own name: ORDER BY transaction_id would otherwise sort the text.
const COLUMNS =
  'global_position, transaction_id::text as commit_position, stream_id, stream_revision, event_id, event_type, data, metadata, recorded_at';

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: Number(row.stream_revision),
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.global_position) },
    type: row.event_type,
    data: row.data,
    metadata: { ...row.metadata, recordedAt: row.recorded_at.toISOString() },
  };
}

function expectedCode(expected: ExpectedRevision): number {
  if (expected === 'no_stream') return -1;
  if (expected === 'any') return -2;
  if (expected === 'stream_exists') return -3;
  if (!Number.isInteger(expected) || expected < 0) throw new Error(`Bad expected revision ${expected}`);
  return expected;
}

export async function migrateEventStore(pool: pg.Pool) {
  // Two processes may start at once against one database: serialise the DDL.
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock(7412001)');
    await client.query(EVENT_STORE_SCHEMA);
  } finally {
    await client.query('select pg_advisory_unlock(7412001)');
    client.release();
  }
}

export type PostgresEventStoreOptions = { pollIntervalMs?: number; batchSize?: number };

export class PostgresEventStore implements EventStore {
  private notifyInFlight = false;
  private notifyAgain = false;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions = {},
  ) {
    // An idle connection dropped by the server (restart, shutdown) is replaced, not fatal.
    pool.on('error', () => {});
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
  }

  static async connect(connectionString: string, options: PostgresEventStoreOptions & { max?: number } = {}) {
    const pool = new pg.Pool({ connectionString, max: options.max ?? 20 });
    await migrateEventStore(pool);
    return new PostgresEventStore(pool, options);
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    const result = await this.pool.query<EventRow>(
      `select ${COLUMNS} from es.events where stream_id = $1 order by stream_revision`,
      [streamId],
    );
    return result.rows.map(toRecorded);
  }

  async appendToStream(
    streamId: string,
    events: EventToAppend[],
    options: { expectedRevision: ExpectedRevision },
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('Nothing to append');
    try {
      const result = await this.pool.query<{
        next_revision: string;
        commit_position: string;
        prepare_position: string;
      }>('select * from es.append_to_stream($1, $2, $3, $4, $5, $6)', [
        streamId,
        expectedCode(options.expectedRevision),
        events.map((e) => e.id ?? randomUUID()),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata)),
      ]);
      const row = result.rows[0];
      if (!row) throw new Error('append returned nothing');
      return {
        nextRevision: Number(row.next_revision),
        position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
      };
    } catch (error) {
      const pgError = error as { code?: string; detail?: string };
      if (pgError.code === 'ES409') {
        const actual = Number(pgError.detail);
        throw new WrongExpectedRevision(streamId, options.expectedRevision, actual < 0 ? 'no_stream' : actual);
      }
      throw error;
    } finally {
      this.wakeSubscribers();
    }
  }

  async readAll(options: { from?: Position; limit?: number } = {}): Promise<RecordedEvent[]> {
    const from = options.from ?? START;
    const result = await this.pool.query<EventRow>(
      `select ${COLUMNS} from es.events
        where (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
          and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        order by transaction_id, global_position
        limit $3`,
      [from.commit.toString(), from.prepare.toString(), options.limit ?? this.batchSize],
    );
    return result.rows.map(toRecorded);
  }

  /** Events exist that a running transaction still hides from `$all` readers. */
  private async someEventsWithheld(): Promise<boolean> {
    const result = await this.pool.query(
      'select exists(select 1 from es.events where transaction_id >= pg_snapshot_xmin(pg_current_snapshot())) as withheld',
    );
    return result.rows[0].withheld === true;
  }

  subscribeToAll(from: Position = START): Observable<RecordedEvent> {
    return new Observable<RecordedEvent>((subscriber) => {
      let position = from;
      let closed = false;
      let wake: (() => void) | undefined;
      const listener = new pg.Client(this.pool.options);
      const sleep = (ms: number) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      const run = async () => {
        await listener.connect();
        listener.on('notification', () => wake?.());
        listener.on('error', () => wake?.());
        await listener.query(`listen ${EVENTS_CHANNEL}`);
        while (!closed) {
          const batch = await this.readAll({ from: position });
          for (const event of batch) {
            if (closed) return;
            subscriber.next(event);
            position = event.position;
          }
          if (batch.length === this.batchSize) {
            await new Promise((resolve) => setImmediate(resolve));
            continue;
          }
          // A transaction still running holds back later events: look again soon.
          await sleep((await this.someEventsWithheld()) ? 5 : this.pollIntervalMs);
        }
      };
      run().catch((error) => {
        if (!closed) subscriber.error(error);
      });
      return () => {
        closed = true;
        wake?.();
        listener.end().catch(() => {});
      };
    });
  }

  /**
   * Subscribers are woken after the append committed, outside its transaction: NOTIFY inside
   * it would serialise every commit on the notify queue lock. Wake-ups coalesce, so a burst
   * of appends sends a handful of notifications, and polling remains the fallback.
   */
  private wakeSubscribers() {
    if (this.notifyInFlight) {
      this.notifyAgain = true;
      return;
    }
    this.notifyInFlight = true;
    this.pool
      .query(`select pg_notify('${EVENTS_CHANNEL}', '')`)
      .catch(() => {})
      .finally(() => {
        this.notifyInFlight = false;
        if (this.notifyAgain) {
          this.notifyAgain = false;
          this.wakeSubscribers();
        }
      });
  }

  async close() {
    await this.pool.end();
  }
}
