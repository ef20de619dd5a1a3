import { randomUUID } from 'node:crypto';
import { type EventUpcaster, upcastEvent } from '@agency/contracts';
import pg from 'pg';
import type { Observable } from 'rxjs';
import { observeFollow } from '../observe-follow';
import {
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  START,
  unreadableEvent,
  WrongExpectedRevision,
} from '../port';
import { HORIZON_CTES } from './all-horizon';
import { migrateEventStore } from './schema';

export { migrateEventStore };

export const EVENTS_CHANNEL = 'es_events';

/** A row of `es.events` as the store's statements read it. */
export type EventRow = {
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

/**
 * Every event read leaves through here, so streams, `$all` and subscriptions alike hand out
 * the current payload: an event stored at an older `schemaVersion` is upcast on the way out.
 * One that cannot be upcast is handed out marked unreadable (at its stored version), so it stops
 * only the readers that need it instead of failing the whole read.
 */
function toRecorded(row: EventRow, upcast: EventUpcaster): RecordedEvent {
  const recorded = (data: RecordedEvent['data'], version: number | undefined): RecordedEvent => ({
    id: row.event_id,
    streamId: row.stream_id,
    revision: Number(row.stream_revision),
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.global_position) },
    type: row.event_type,
    data,
    metadata: {
      ...row.metadata,
      schemaVersion: version,
      // An event copied from another store (npm run store:copy) keeps the time it was first recorded.
      recordedAt:
        typeof row.metadata?.recordedAt === 'string' ? row.metadata.recordedAt : row.recorded_at.toISOString(),
    },
  });
  try {
    const { version, data } = upcast(row.event_type, row.metadata?.schemaVersion, row.data);
    return recorded(data, version);
  } catch (error) {
    return unreadableEvent(recorded(row.data, row.metadata?.schemaVersion), error);
  }
}

function expectedCode(expected: ExpectedRevision): number {
  if (expected === 'no_stream') return -1;
  if (expected === 'any') return -2;
  if (expected === 'stream_exists') return -3;
  if (!Number.isInteger(expected) || expected < 0) throw new Error(`Bad expected revision ${expected}`);
  return expected;
}

/** One step of a subscription's loop, told to `onSubscriptionStep` (tests count them). */
export type SubscriptionStep =
  | { kind: 'read'; events: number }
  | { kind: 'notified' }
  | { kind: 'wait'; ms: number; withheld: boolean };

export type PostgresEventStoreOptions = {
  /** The fallback poll of a live subscription; NOTIFY wakes it sooner. */
  pollIntervalMs?: number;
  batchSize?: number;
  /** Told when a running transaction has held `$all` back for a while, and which backend it is. */
  log?: (message: string) => void;
  onSubscriptionStep?: (step: SubscriptionStep) => void;
  /** Turns stored payloads of older versions into current ones; the product's registry by default. */
  upcast?: EventUpcaster;
};

/** A transaction that holds `$all` back longer than the poll interval is logged, then again this often. */
const WITHHELD_LOG_EVERY_MS = 30_000;

export class PostgresEventStore implements EventStore {
  private notifyInFlight = false;
  private notifyAgain = false;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly log: (message: string) => void;
  private readonly onStep: (step: SubscriptionStep) => void;
  private readonly upcast: EventUpcaster;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions = {},
  ) {
    // An idle connection dropped by the server (restart, shutdown) is replaced, not fatal.
    pool.on('error', () => {});
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.log = options.log ?? (() => {});
    this.onStep = options.onSubscriptionStep ?? (() => {});
    this.upcast = options.upcast ?? upcastEvent;
  }

  static async connect(connectionString: string, options: PostgresEventStoreOptions & { max?: number } = {}) {
    const pool = new pg.Pool({ connectionString, max: options.max ?? 20 });
    await migrateEventStore(pool, { log: options.log });
    return new PostgresEventStore(pool, options);
  }

  async readStream(streamId: string, options: { fromRevision?: number } = {}): Promise<RecordedEvent[]> {
    const result = await this.pool.query<EventRow>(
      `select ${COLUMNS} from es.events where stream_id = $1 and stream_revision >= $2 order by stream_revision`,
      [streamId, options.fromRevision ?? 0],
    );
    return result.rows.map((row) => toRecorded(row, this.upcast));
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
    // Only below the horizon: every event there that will ever commit is visible now (all-horizon.ts).
    const result = await this.pool.query<EventRow>(
      `with ${HORIZON_CTES}
       select ${COLUMNS} from es.events
        where (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
          and transaction_id < (select id from horizon)
        order by transaction_id, global_position
        limit $3`,
      [from.commit.toString(), from.prepare.toString(), options.limit ?? this.batchSize],
    );
    return result.rows.map((row) => toRecorded(row, this.upcast));
  }

  async head(): Promise<Position> {
    const result = await this.pool.query<{ commit: string; prepare: string }>(
      `with ${HORIZON_CTES}
       select transaction_id::text as commit, global_position::text as prepare from es.events
        where transaction_id < (select id from horizon)
        order by transaction_id desc, global_position desc limit 1`,
    );
    const row = result.rows[0];
    return row ? { commit: BigInt(row.commit), prepare: BigInt(row.prepare) } : START;
  }

  /** Events exist that a running appender still hides from `$all` readers. */
  private async someEventsWithheld(): Promise<boolean> {
    // The last event's id against the horizon: one step down the (transaction_id, global_position)
    // index. The same question put as `exists (… where transaction_id >= horizon)` is planned
    // blind to the horizon's value and read the whole table (0.8 s at a million events, seconds
    // under load), after every batch of every follower.
    const result = await this.pool.query(
      `with ${HORIZON_CTES}
       select coalesce((select max(transaction_id) from es.events) >= (select id from horizon), false) as withheld`,
    );
    return result.rows[0].withheld === true;
  }

  /**
   * The backends holding `$all` back: the running transactions the horizon waits for (appenders,
   * or any whose status the horizon could not tell) older than the first committed event readers
   * cannot see yet, oldest first.
   */
  private async describeWithholders(): Promise<string> {
    const result = await this.pool.query<{
      pid: number;
      datname: string | null;
      usename: string | null;
      application_name: string;
      state: string | null;
      xact_start: Date | null;
      query: string | null;
    }>(
      `with ${HORIZON_CTES},
       first_withheld as (
         select min(transaction_id) as id from es.events where transaction_id >= (select id from horizon)
       )
       select a.pid, a.datname, a.usename, a.application_name, a.state, a.xact_start, left(a.query, 500) as query
         from pg_stat_activity a, first_withheld f
        where a.backend_xid is not null
          and exists (select 1 from holders h where xid(h.id) = a.backend_xid and (f.id is null or h.id < f.id))
        order by age(a.backend_xid) desc
        limit 3`,
    );
    if (result.rows.length === 0) return 'no running transaction found (it has just ended)';
    return result.rows
      .map((holder) => {
        const who = [holder.usename, holder.datname, holder.application_name].filter(Boolean).join('@');
        const since = holder.xact_start?.toISOString() ?? '?';
        return `pid ${holder.pid} (${who}, ${holder.state ?? 'unknown state'}) in a transaction since ${since}; its last query: ${holder.query ?? '?'}`;
      })
      .join(' | ');
  }

  /**
   * A subscription with backpressure: reads a batch of `$all` after `from`, hands it to
   * `handle` and reads the next only once the promise `handle` returned has resolved, so at
   * most one batch is held in memory however far behind the consumer is. Once caught up it
   * waits for NOTIFY (a notification that arrives while a batch is read or handled causes
   * another read at once, never a wait for the poll), polling every `pollIntervalMs` as the
   * fallback. While a running appender holds later events back it looks again after 5 ms,
   * doubling up to the poll interval, and tells `log` which backend holds it.
   *
   * Resolves when `signal` aborts; rejects with the error of `handle` or of the store.
   */
  async followAll(
    from: Position,
    handle: (events: RecordedEvent[]) => Promise<void>,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return;
    let position = from;
    let dirty = false;
    let wake: (() => void) | undefined;
    const poke = () => {
      dirty = true;
      wake?.();
    };
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    const listener = new pg.Client(this.pool.options);
    listener.on('notification', () => {
      this.onStep({ kind: 'notified' });
      poke();
    });
    // A lost listener leaves polling as the fallback.
    listener.on('error', poke);
    signal?.addEventListener('abort', poke);
    try {
      await listener.connect();
      await listener.query(`listen ${EVENTS_CHANNEL}`);
      let withheldDelay = 0;
      let withheldSince = 0;
      let loggedAt = 0;
      while (!signal?.aborted) {
        // Cleared before the read: a NOTIFY from here on means "read again".
        dirty = false;
        const batch = await this.readAll({ from: position });
        this.onStep({ kind: 'read', events: batch.length });
        if (signal?.aborted) return;
        const last = batch.at(-1);
        if (last) {
          await handle(batch);
          position = last.position;
          // Progress: whatever holds events back now is a new (and so far short) wait.
          withheldDelay = 0;
          withheldSince = 0;
        }
        if (batch.length === this.batchSize) {
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        if (dirty || signal?.aborted) continue;
        if (await this.someEventsWithheld()) {
          // A transaction still running holds back later events: look again soon, then less often.
          withheldDelay = withheldDelay === 0 ? 5 : Math.min(withheldDelay * 2, this.pollIntervalMs);
          const now = Date.now();
          if (withheldSince === 0) withheldSince = now;
          if (now - withheldSince >= this.pollIntervalMs && now - loggedAt >= WITHHELD_LOG_EVERY_MS) {
            loggedAt = now;
            const holders = await this.describeWithholders().catch((error) => `unknown (${error})`);
            this.log(`$all is held back for ${now - withheldSince} ms by a running transaction: ${holders}`);
          }
        } else {
          withheldDelay = 0;
          withheldSince = 0;
          loggedAt = 0;
        }
        const ms = withheldDelay || this.pollIntervalMs;
        this.onStep({ kind: 'wait', ms, withheld: withheldDelay > 0 });
        if (dirty || signal?.aborted) continue;
        await sleep(ms);
      }
    } finally {
      signal?.removeEventListener('abort', poke);
      await listener.end().catch(() => {});
    }
  }

  /** The same loop as `followAll`, pushed as an Observable (a slow consumer buffers). */
  subscribeToAll(from: Position = START): Observable<RecordedEvent> {
    return observeFollow(this.followAll.bind(this), from);
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
