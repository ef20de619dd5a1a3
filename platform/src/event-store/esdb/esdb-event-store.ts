import { type EventUpcaster, upcastEvent } from '@agency/contracts';
import {
  type AllStreamResolvedEvent,
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  START as SERVER_START,
} from '@eventstore/db-client';
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
} from '../port';
import { Doorbell, LiveDoorbell } from './doorbell';
import {
  afterPosition,
  fromServerEvent,
  fromServerRevision,
  isSystemEvent,
  mapAppendError,
  readAllRequest,
  type ServerRecordedEvent,
  toServerEvent,
  toServerExpectedRevision,
} from './esdb-mapping';

export type EsdbEventStoreOptions = {
  /** The fallback poll of a live `followAll`; the server's own subscription wakes it sooner. */
  pollIntervalMs?: number;
  batchSize?: number;
  upcast?: EventUpcaster;
};

type ServerEventOf<R> = R extends { event?: infer E } ? E : never;

/**
 * The port on EventStoreDB / KurrentDB (`@eventstore/db-client`, gRPC). Streams, revisions,
 * optimistic concurrency and idempotent appends (by event id) are the server's own; positions
 * are the server's `{ commit, prepare }`; the metadata auditors read travels in each event's
 * metadata. `$all` is read in pages after a checkpoint (the server's system events left out);
 * `followAll` pages through it with backpressure and, once caught up, waits for the server's live
 * subscription to say something new was written (polling is only the fallback), as the
 * PostgreSQL adapter waits for NOTIFY.
 */
export class EsdbEventStore implements EventStore {
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly upcast: EventUpcaster;

  constructor(
    private readonly client: EventStoreDBClient,
    options: EsdbEventStoreOptions = {},
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.upcast = options.upcast ?? upcastEvent;
  }

  /** A client for `connectionString` (esdb://…); the connection itself is made on first use. */
  static connect(connectionString: string, options: EsdbEventStoreOptions = {}) {
    return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString), options);
  }

  /** Asks the server for one event of `$all`; rejects when it does not answer within `deadlineMs`. */
  async ping(deadlineMs = 5000): Promise<void> {
    for await (const _ of this.client.readAll({ maxCount: 1, fromPosition: SERVER_START, deadline: deadlineMs })) {
      break;
    }
  }

  async readStream(streamId: string, options: { fromRevision?: number } = {}): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, {
        fromRevision: options.fromRevision ? BigInt(options.fromRevision) : SERVER_START,
        direction: FORWARDS,
      })) {
        if (resolved.event) events.push(fromServerEvent(resolved.event as ServerRecordedEvent, this.upcast));
      }
    } catch (error) {
      if ((error as { type?: string }).type === 'stream-not-found') return [];
      throw error;
    }
    return events;
  }

  async appendToStream(
    streamId: string,
    events: EventToAppend[],
    options: { expectedRevision: ExpectedRevision },
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('Nothing to append');
    const expected = options.expectedRevision;
    try {
      const result = await this.client.appendToStream(streamId, events.map(toServerEvent), {
        expectedRevision: toServerExpectedRevision(expected),
      });
      if (!result.position) throw new Error('The server gave no position for an append (server older than 22.6?)');
      return {
        nextRevision: fromServerRevision(result.nextExpectedRevision),
        position: { commit: result.position.commit, prepare: result.position.prepare },
      };
    } catch (error) {
      throw mapAppendError(error, streamId, expected);
    }
  }

  async readAll(options: { from?: Position; limit?: number } = {}): Promise<RecordedEvent[]> {
    const limit = options.limit ?? this.batchSize;
    const out: RecordedEvent[] = [];
    let cursor = options.from;
    // System events are left out here, not by the server (its readAll has no filter): a page of
    // nothing but those moves the cursor on and reads again.
    while (out.length < limit) {
      const request = readAllRequest(cursor, limit - out.length);
      const page: ServerEventOf<AllStreamResolvedEvent>[] = [];
      for await (const resolved of this.client.readAll({ ...request, direction: FORWARDS, resolveLinkTos: false })) {
        if (resolved.event) page.push(resolved.event);
      }
      const wanted = afterPosition(cursor, page);
      for (const event of wanted) out.push(fromServerEvent(event as ServerRecordedEvent, this.upcast, event.position));
      const last = page.at(-1);
      if (page.length < request.maxCount || !last) break;
      cursor = last.position;
    }
    return out.slice(0, limit);
  }

  async head(): Promise<Position> {
    for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 100 })) {
      const event = resolved.event;
      if (event?.position && !isSystemEvent(event)) {
        return { commit: event.position.commit, prepare: event.position.prepare };
      }
    }
    return START;
  }

  /**
   * Hands `handle` one page of `$all` at a time after `from`, reading the next only once it has
   * resolved; once caught up, waits for the server's live subscription (any new event of ours
   * wakes it) or the poll interval. Resolves when `signal` aborts; rejects with `handle`'s error.
   */
  async followAll(
    from: Position,
    handle: (events: RecordedEvent[]) => Promise<void>,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return;
    const bell = new Doorbell();
    // Opened before the first read: whatever is written after it either is read or rings. A lost
    // subscription rings and is opened again (polling is the fallback only meanwhile).
    const live = new LiveDoorbell(
      () => this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() }),
      bell,
    );
    signal?.addEventListener('abort', bell.ring);
    let after = from;
    try {
      while (!signal?.aborted) {
        bell.clear();
        const page = await this.readAll({ from: after });
        if (signal?.aborted) return;
        if (page.length > 0) {
          await handle(page);
          after = (page.at(-1) as RecordedEvent).position;
        }
        if (page.length < this.batchSize && !signal?.aborted) await bell.wait(this.pollIntervalMs);
      }
    } finally {
      signal?.removeEventListener('abort', bell.ring);
      await live.close();
    }
  }

  /** The same loop as `followAll`, pushed as an Observable (a slow consumer buffers). */
  subscribeToAll(from: Position = START): Observable<RecordedEvent> {
    return observeFollow(this.followAll.bind(this), from);
  }

  async close() {
    await this.client.dispose();
  }
}
