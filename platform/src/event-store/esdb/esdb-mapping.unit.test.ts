import { upcastEvent } from '@agency/contracts';
import { WrongExpectedVersionError } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { comparePositions, formatPosition, parsePosition, START, WrongExpectedRevision } from '../port';
import {
  afterPosition,
  fromServerEvent,
  fromServerRevision,
  isSystemEvent,
  mapAppendError,
  readAllRequest,
  type ServerRecordedEvent,
  serverEventId,
  toServerEvent,
  toServerExpectedRevision,
} from './esdb-mapping';

const metadata = {
  userId: 'u-1',
  role: 'admin',
  commandId: 'c0a80101-0000-4000-8000-000000000001',
  correlationId: 'c0a80101-0000-4000-8000-000000000002',
  causationId: 'c0a80101-0000-4000-8000-000000000003',
};

const serverEvent = (overrides: Partial<ServerRecordedEvent> = {}): ServerRecordedEvent => ({
  streamId: 'client-1',
  id: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE',
  revision: 3n,
  type: 'ClientRegistered',
  created: new Date('2025-03-04T05:06:07.089Z'),
  isJson: true,
  data: { clientId: 'client-1' },
  metadata: { ...metadata, schemaVersion: 1 },
  position: { commit: 9_007_199_254_740_993n, prepare: 9_007_199_254_740_993n },
  ...overrides,
});

describe('revisions', () => {
  it('asks the server for the same expectation, a number as a bigint', () => {
    expect(toServerExpectedRevision('no_stream')).toBe('no_stream');
    expect(toServerExpectedRevision('any')).toBe('any');
    expect(toServerExpectedRevision('stream_exists')).toBe('stream_exists');
    expect(toServerExpectedRevision(0)).toBe(0n);
    expect(toServerExpectedRevision(41)).toBe(41n);
  });

  it('refuses a revision the server would misread', () => {
    expect(() => toServerExpectedRevision(-1)).toThrow(/Bad expected revision/);
    expect(() => toServerExpectedRevision(1.5)).toThrow(/Bad expected revision/);
  });

  it("turns the server's bigint revisions into numbers, refusing what a number cannot hold exactly", () => {
    expect(fromServerRevision(0n)).toBe(0);
    expect(fromServerRevision(1234n)).toBe(1234);
    expect(() => fromServerRevision(2n ** 60n)).toThrow(/out of range/);
    expect(() => fromServerRevision(-1n)).toThrow(/out of range/);
  });
});

describe('errors', () => {
  it("maps the client's WrongExpectedVersionError to the port's typed conflict with the actual revision", () => {
    const server = new WrongExpectedVersionError(undefined, {
      streamName: 'client-1',
      expected: 0n,
      current: 4n,
    });
    const mapped = mapAppendError(server, 'client-1', 0);
    expect(mapped).toBeInstanceOf(WrongExpectedRevision);
    expect(mapped).toMatchObject({ streamId: 'client-1', expected: 0, actual: 4, code: 'wrong_expected_revision' });
  });

  it('reports a missing stream as no_stream', () => {
    const server = new WrongExpectedVersionError(undefined, {
      streamName: 'client-2',
      expected: 3n,
      current: 'no_stream',
    });
    expect(mapAppendError(server, 'client-2', 3)).toMatchObject({ expected: 3, actual: 'no_stream' });
  });

  it('hands any other error back as it is', () => {
    const other = new Error('unavailable');
    expect(mapAppendError(other, 'client-1', 'any')).toBe(other);
    expect(mapAppendError({ type: 'access-denied' }, 'client-1', 'any')).toEqual({ type: 'access-denied' });
  });
});

describe('event ids', () => {
  it("keeps the pipeline's derived UUIDs (lower case), so a retried append carries the same ids", () => {
    expect(serverEventId('AAAAAAAA-BBBB-5CCC-8DDD-EEEEEEEEEEEE')).toBe('aaaaaaaa-bbbb-5ccc-8ddd-eeeeeeeeeeee');
    const retried = [toServerEvent({ id: metadata.commandId, type: 'A', data: {}, metadata })];
    expect(retried[0]?.id).toBe(metadata.commandId);
  });

  it('turns an id that is not a UUID into the same UUID every time, and different ids into different ones', () => {
    const id = serverEventId('command-7/step-2/0');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(serverEventId('command-7/step-2/0')).toBe(id);
    expect(serverEventId('command-7/step-2/1')).not.toBe(id);
  });

  it('gives an event without an id a fresh random one', () => {
    expect(serverEventId(undefined)).not.toBe(serverEventId(undefined));
  });

  it("refuses event types the server keeps for itself, and sends metadata in the event's metadata", () => {
    expect(() => toServerEvent({ type: '$stats', data: {}, metadata })).toThrow(/server/);
    expect(toServerEvent({ type: 'A', data: { n: 1 }, metadata })).toMatchObject({
      contentType: 'application/json',
      type: 'A',
      data: { n: 1 },
      metadata,
    });
  });
});

describe('recorded events', () => {
  it("keeps the server's position, takes recordedAt from created, lower-cases the id", () => {
    const event = fromServerEvent(serverEvent(), upcastEvent);
    expect(event).toMatchObject({
      id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
      streamId: 'client-1',
      revision: 3,
      position: { commit: 9_007_199_254_740_993n, prepare: 9_007_199_254_740_993n },
      type: 'ClientRegistered',
      data: { clientId: 'client-1' },
      metadata: { ...metadata, recordedAt: '2025-03-04T05:06:07.089Z' },
    });
  });

  it('delivers an event whose payload is not JSON as unreadable, instead of failing the whole read', () => {
    const broken = serverEvent({ data: new TextEncoder().encode('{not json') });
    const event = fromServerEvent(broken, upcastEvent);
    expect(event.readError).toBeDefined();
    expect(event.position).toEqual({ commit: 9_007_199_254_740_993n, prepare: 9_007_199_254_740_993n });
    expect(() => event.data.clientId).toThrow();
  });

  it('keeps the recordedAt a copied event carries in its metadata', () => {
    const copied = serverEvent({ metadata: { ...metadata, recordedAt: '2019-01-01T00:00:00.000Z' } });
    expect(fromServerEvent(copied, upcastEvent).metadata.recordedAt).toBe('2019-01-01T00:00:00.000Z');
  });

  it('reads JSON sent as bytes, upcasts old payloads, and prefers the position $all gave', () => {
    const seen: unknown[] = [];
    const event = fromServerEvent(
      serverEvent({
        isJson: false,
        data: Buffer.from(JSON.stringify({ old: true })),
        metadata: Buffer.from(JSON.stringify({ ...metadata, schemaVersion: 1 })),
        position: undefined,
      }),
      (type, version, data) => {
        seen.push([type, version, data]);
        return { version: 2, data: { ...data, upcast: true } };
      },
      { commit: 10n, prepare: 9n },
    );
    expect(seen).toEqual([['ClientRegistered', 1, { old: true }]]);
    expect(event.data).toEqual({ old: true, upcast: true });
    expect(event.metadata.schemaVersion).toBe(2);
    expect(event.position).toEqual({ commit: 10n, prepare: 9n });
  });

  it('refuses an event without a position (a server older than 22.6)', () => {
    expect(() => fromServerEvent(serverEvent({ position: undefined }), upcastEvent)).toThrow(/no position/);
  });
});

describe('$all', () => {
  it("reads from the server's start for START, else one more than wanted from the checkpoint (the server includes it)", () => {
    expect(readAllRequest(undefined, 500)).toEqual({ fromPosition: 'start', maxCount: 500 });
    expect(readAllRequest(START, 10)).toEqual({ fromPosition: 'start', maxCount: 10 });
    expect(readAllRequest({ commit: 200n, prepare: 100n }, 10)).toEqual({
      fromPosition: { commit: 200n, prepare: 100n },
      maxCount: 11,
    });
  });

  it('keeps only the events after the checkpoint and none of the system ones', () => {
    const at = (commit: bigint, prepare: bigint, streamId = 's', type = 'T') => ({
      position: { commit, prepare },
      streamId,
      type,
    });
    const page = [
      at(200n, 100n),
      at(200n, 150n),
      at(300n, 300n, '$stats-1'),
      at(400n, 400n, 's', '$>'),
      at(500n, 500n),
    ];
    expect(afterPosition({ commit: 200n, prepare: 100n }, page)).toEqual([page[1], page[4]]);
    expect(afterPosition(START, [at(0n, 0n), at(1n, 1n, '$epoch')])).toEqual([at(0n, 0n)]);
    expect(isSystemEvent({ streamId: '$settings', type: 'Settings' })).toBe(true);
    expect(isSystemEvent({ streamId: 'client-1', type: '$metadata' })).toBe(true);
    expect(isSystemEvent({ streamId: 'client-1', type: 'ClientRegistered' })).toBe(false);
  });
});

describe('checkpoints', () => {
  it("stores the server's positions as the checkpoint text and bigint columns do, and orders them as the server does", () => {
    const server = { commit: 9_223_372_036_854_775_000n, prepare: 9_223_372_036_854_774_999n };
    expect(formatPosition(server)).toBe('9223372036854775000/9223372036854774999');
    expect(parsePosition(formatPosition(server))).toEqual(server);
    // The checkpoint columns are bigint: their text round-trips exactly, beyond a double's precision.
    expect(BigInt(server.commit.toString())).toBe(server.commit);
    expect(comparePositions({ commit: 1000n, prepare: 990n }, { commit: 1000n, prepare: 995n })).toBe(-1);
    expect(comparePositions({ commit: 1001n, prepare: 0n }, { commit: 1000n, prepare: 995n })).toBe(1);
  });
});
