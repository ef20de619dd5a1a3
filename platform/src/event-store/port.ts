import type { Observable } from 'rxjs';

/**
 * A place in `$all`. Like EventStoreDB's position it has two parts: `commit` orders
 * transactions (the PostgreSQL adapter uses the transaction id), `prepare` orders events
 * inside one. Compare with `comparePositions`, never by one part alone.
 */
export type Position = { commit: bigint; prepare: bigint };

export const START: Position = { commit: 0n, prepare: 0n };

export type ExpectedRevision = 'no_stream' | 'any' | 'stream_exists' | number;

export type EventMetadata = {
  userId: string;
  role: string;
  commandId: string;
  correlationId: string;
  causationId: string;
  /** The version of the payload's schema in `contracts`. */
  schemaVersion?: number;
};

export type EventToAppend = {
  id?: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
};

export type RecordedEvent = {
  id: string;
  streamId: string;
  revision: number;
  position: Position;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata & { recordedAt: string };
  /**
   * Set on an event whose payload could not be read (a sealed field that does not open, a stored
   * version no upcaster turns into the current one): its `data` then throws this error on any use,
   * so nothing goes on with a payload it never got. A reader of `$all` gets the event in its place,
   * so only those that handle its type stop at it (recorded, reported, retried); the rest go on.
   */
  readError?: EventReadError;
};

/** Why an event could not be read; its message names the event and the cause. */
export class EventReadError extends Error {
  readonly code = 'event_unreadable';
  constructor(
    readonly eventId: string,
    readonly streamId: string,
    readonly type: string,
    cause: unknown,
  ) {
    super(
      `${type} ${eventId} in ${streamId} cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
  }
}

/**
 * `event` marked unreadable for `cause`: its payload is one that throws the read error on any use
 * (a property read, a key listing, JSON.stringify), rather than one that silently lacks fields.
 */
export function unreadableEvent(event: Omit<RecordedEvent, 'data' | 'readError'>, cause: unknown): RecordedEvent {
  const readError =
    cause instanceof EventReadError ? cause : new EventReadError(event.id, event.streamId, event.type, cause);
  const refuse = (): never => {
    throw readError;
  };
  const data = new Proxy<Record<string, unknown>>(
    {},
    {
      get: refuse,
      has: refuse,
      ownKeys: refuse,
      getOwnPropertyDescriptor: refuse,
      set: refuse,
      deleteProperty: refuse,
    },
  );
  return { ...event, data, readError };
}

export type AppendResult = { nextRevision: number; position: Position };

export interface EventStore {
  /** The stream in revision order; with `fromRevision`, only the events at or after that revision. */
  readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]>;
  appendToStream(
    streamId: string,
    events: EventToAppend[],
    options: { expectedRevision: ExpectedRevision },
  ): Promise<AppendResult>;
  /** Events after `from` (exclusive) in global order. */
  readAll(options?: { from?: Position; limit?: number }): Promise<RecordedEvent[]>;
  /**
   * The position of the last event a reader of `$all` can see now (START when there is none):
   * where something that starts following the log today begins, without reading the past.
   */
  head(): Promise<Position>;
  /** Catches up from `from` (exclusive), then stays live until unsubscribed. */
  subscribeToAll(from?: Position): Observable<RecordedEvent>;
  /**
   * The same with backpressure: hands `handle` one batch at a time after `from` (exclusive),
   * catching up and then staying live, and reads the next batch only once the promise `handle`
   * returned has resolved. Resolves when `signal` aborts; rejects with `handle`'s error.
   */
  followAll?(
    from: Position,
    handle: (events: RecordedEvent[]) => Promise<void>,
    options?: { signal?: AbortSignal },
  ): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevision extends Error {
  readonly code = 'wrong_expected_revision';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Stream ${streamId} is at revision ${actual}, not ${expected}`);
  }
}

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function formatPosition(position: Position): string {
  return `${position.commit}/${position.prepare}`;
}

export function parsePosition(text: string): Position {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) throw new Error(`Not a position: ${text}`);
  return { commit: BigInt(match[1] as string), prepare: BigInt(match[2] as string) };
}
