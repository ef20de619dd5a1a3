import { createHash } from 'node:crypto';
import type { EventStore, Position, RecordedEvent } from '@agency/platform';

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
