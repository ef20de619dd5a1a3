import { createHash, randomUUID } from 'node:crypto';
import type { EventUpcaster } from '@agency/contracts';
import {
  comparePositions,
  type EventMetadata,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  START,
  unreadableEvent,
  WrongExpectedRevision,
} from '../port';

/**
 * The EventStoreDB adapter's own logic, kept free of the client library and the network so unit
 * tests cover it: how the port's revisions, positions, ids and metadata become the server's and
 * back. The client's types are restated structurally (the fields the adapter reads).
 */

/** What the server is asked for as `expectedRevision`. */
export type ServerExpectedRevision = 'no_stream' | 'any' | 'stream_exists' | bigint;

export function toServerExpectedRevision(expected: ExpectedRevision): ServerExpectedRevision {
  if (expected === 'no_stream' || expected === 'any' || expected === 'stream_exists') return expected;
  if (!Number.isSafeInteger(expected) || expected < 0) throw new Error(`Bad expected revision ${expected}`);
  return BigInt(expected);
}

/** A stream revision from the server (a bigint) as the port's number. */
export function fromServerRevision(revision: bigint): number {
  if (revision < 0n || revision > BigInt(Number.MAX_SAFE_INTEGER))
    throw new Error(`Revision out of range: ${revision}`);
  return Number(revision);
}

/** The fields of the client's WrongExpectedVersionError the adapter reads. */
type WrongExpectedVersionLike = { type: 'wrong-expected-version'; actualVersion: 'no_stream' | bigint };

function isWrongExpectedVersion(error: unknown): error is WrongExpectedVersionLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { type?: unknown }).type === 'wrong-expected-version' &&
    'actualVersion' in error
  );
}

/**
 * The server's refusal of an expected revision becomes the port's typed conflict (the same the
 * PostgreSQL adapter throws); any other error is handed back as it is.
 */
export function mapAppendError(error: unknown, streamId: string, expected: ExpectedRevision): unknown {
  if (!isWrongExpectedVersion(error)) return error;
  const actual = error.actualVersion;
  // 'stream_exists' against a missing stream: the server reports no current revision.
  const current = typeof actual === 'bigint' && actual >= 0n ? fromServerRevision(actual) : 'no_stream';
  return new WrongExpectedRevision(streamId, expected, current);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The server keys its idempotency on the event id, which must be a UUID. The pipeline derives
 * ids from the command id (UUIDs already), so a retried append carries the same ids and the
 * server accepts it once. An id given in another form is turned into a UUID by hashing (the same
 * text always gives the same UUID); none given gets a random one.
 */
export function serverEventId(id: string | undefined): string {
  if (id === undefined) return randomUUID();
  if (UUID.test(id)) return id.toLowerCase();
  const hash = createHash('sha1').update(`event-id\u0000${id}`).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An event as the client's `appendToStream` takes it (JSON data and metadata). */
export type ServerEventData = {
  id: string;
  contentType: 'application/json';
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
};

export function toServerEvent(event: EventToAppend): ServerEventData {
  if (event.type.startsWith('$')) throw new Error(`Event types starting with $ are the server's: ${event.type}`);
  return {
    id: serverEventId(event.id),
    contentType: 'application/json',
    type: event.type,
    data: event.data,
    metadata: { ...event.metadata },
  };
}

/** The fields of the client's recorded event the adapter reads. */
export type ServerRecordedEvent = {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  created: Date;
  isJson: boolean;
  data: unknown;
  metadata: unknown;
  position?: Position;
};

/** The server's system streams and events ($-prefixed) are not the product's: `$all` leaves them out. */
export const isSystemEvent = (event: { streamId: string; type: string }) =>
  event.streamId.startsWith('$') || event.type.startsWith('$');

function jsonOf(value: unknown): Record<string, unknown> {
  if (value instanceof Uint8Array) {
    if (value.length === 0) return {};
    return JSON.parse(Buffer.from(value).toString('utf8')) as Record<string, unknown>;
  }
  if (value === undefined || value === null) return {};
  return value as Record<string, unknown>;
}

/**
 * A server event as the port's: the position is the server's `{ commit, prepare }` unchanged;
 * `recordedAt` is the server's `created`, unless the metadata already carries one (an event
 * copied from another store keeps the time it was first recorded). Payloads of older schema
 * versions are upcast on the way out, as the PostgreSQL adapter does.
 */
export function fromServerEvent(event: ServerRecordedEvent, upcast: EventUpcaster, position?: Position): RecordedEvent {
  const at = position ?? event.position;
  if (!at)
    throw new Error(`The server gave no position for ${event.streamId}@${event.revision} (server older than 22.6?)`);
  const stored = (() => {
    try {
      return jsonOf(event.metadata) as Partial<EventMetadata> & { recordedAt?: string };
    } catch {
      return {} as Partial<EventMetadata> & { recordedAt?: string };
    }
  })();
  const recorded = (data: Record<string, unknown>, version: number | undefined): RecordedEvent => ({
    id: event.id.toLowerCase(),
    streamId: event.streamId,
    revision: fromServerRevision(event.revision),
    position: { commit: at.commit, prepare: at.prepare },
    type: event.type,
    data,
    metadata: {
      ...(stored as EventMetadata),
      schemaVersion: version,
      recordedAt: typeof stored.recordedAt === 'string' ? stored.recordedAt : event.created.toISOString(),
    },
  });
  // An event that cannot be parsed or upcast is delivered as such: only what handles its type stops at it.
  try {
    const { version, data } = upcast(event.type, stored.schemaVersion, jsonOf(event.data));
    return recorded(data, version);
  } catch (error) {
    return unreadableEvent(recorded({}, stored.schemaVersion), error);
  }
}

/**
 * What to ask the server for to read `$all` after `from` (exclusive): the server reads from a
 * position inclusively, so one more than wanted, and START is the server's 'start'.
 */
export function readAllRequest(
  from: Position | undefined,
  limit: number,
): { fromPosition: 'start' | Position; maxCount: number } {
  if (!from || comparePositions(from, START) === 0) return { fromPosition: 'start', maxCount: limit };
  return { fromPosition: { commit: from.commit, prepare: from.prepare }, maxCount: limit + 1 };
}

/** The port's events of one page: after `from` only, system events left out. */
export function afterPosition<E extends { position: Position; streamId: string; type: string }>(
  from: Position | undefined,
  events: E[],
): E[] {
  return events.filter(
    (event) => !isSystemEvent(event) && (!from || comparePositions(event.position, from) > 0 || isStart(from, event)),
  );
}

/** Reading from START includes an event at position 0/0 (the port's START is "before everything"). */
const isStart = (from: Position, event: { position: Position }) =>
  comparePositions(from, START) === 0 && comparePositions(event.position, START) === 0;
