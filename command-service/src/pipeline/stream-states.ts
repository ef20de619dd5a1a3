import type { Decider } from '@agency/domain';
import type { EventStore, Position, RecordedEvent } from '@agency/platform';

type Folding<S> = Pick<Decider<unknown, never, S>, 'initialState' | 'evolve'>;

/**
 * A stream folded up to a revision: what a command decides on, kept between commands so that a
 * save to a long stream (a tutor's month of lessons) does not read and fold every event again.
 */
export type FoldedStream<S> = {
  /** The revision of the last event folded; -1 when the stream had none. */
  revision: number;
  state: S;
  /** Where the last event folded stands in `$all` (none when the stream had no event). */
  last?: Position;
  /** Every event type folded (the projections a view waits for are those handling them). */
  types: ReadonlySet<string>;
  /**
   * The first 32 bits of every event id folded: whether the stream may already hold events of a
   * command that is run again. A hit may be a false one (then the stream is read whole); a miss
   * is certain.
   */
  idKeys: ReadonlySet<number>;
};

/** The first 32 bits of an event id (a UUID, any case). */
export const idKey = (id: string) => Number.parseInt(id.slice(0, 8), 16);

/** The state after `events` (the whole stream, or those after `from`). */
export function foldStream<S>(decider: Folding<S>, events: RecordedEvent[], from?: FoldedStream<S>): FoldedStream<S> {
  let { state, revision, last } = from ?? { state: decider.initialState(), revision: -1, last: undefined };
  const types = new Set(from?.types);
  const idKeys = new Set(from?.idKeys);
  for (const event of events) {
    state = decider.evolve(state, { type: event.type, data: event.data } as never);
    revision = event.revision;
    last = event.position;
    types.add(event.type);
    idKeys.add(idKey(event.id));
  }
  return { revision, state, last, types, idKeys };
}

/**
 * `folded` brought up to the stream's current revision by reading only the events after it;
 * undefined when what was read does not follow on from it (then the stream is read whole).
 */
export async function catchUpStream<S>(
  store: EventStore,
  streamId: string,
  decider: Folding<S>,
  folded: FoldedStream<S>,
): Promise<FoldedStream<S> | undefined> {
  // A store that ignores `fromRevision` hands the whole stream: the events already folded are dropped.
  const after = (await store.readStream(streamId, { fromRevision: folded.revision + 1 })).filter(
    (event) => event.revision > folded.revision,
  );
  if (after.some((event, index) => event.revision !== folded.revision + 1 + index)) return undefined;
  return foldStream(decider, after, folded);
}

const DEFAULT_LIMIT = 2000;

/**
 * The last folded state of recently used streams, for the deciders listed (those whose state is
 * a pure function of the stored events: no personal field that an erasure could turn into
 * "Erased" after it was folded). A kept state is never trusted as current: a command appends at
 * its revision (so a stream that moved on is refused by the store and read again from there), and
 * any other outcome (nothing to append, a refusal) is confirmed against the events after it.
 * Past `limit` streams of one decider, the least recently used is forgotten.
 */
export class StreamStates {
  private readonly kept = new Map<object, Map<string, FoldedStream<unknown>>>();

  constructor(
    deciders: object[],
    private readonly limit = DEFAULT_LIMIT,
  ) {
    for (const decider of deciders) this.kept.set(decider, new Map());
  }

  /** Whether this decider's states are kept. */
  keeps(decider: object): boolean {
    return this.kept.has(decider);
  }

  get<S>(decider: Folding<S>, streamId: string): FoldedStream<S> | undefined {
    const streams = this.kept.get(decider);
    const folded = streams?.get(streamId);
    if (!streams || !folded) return undefined;
    // Most recently used last.
    streams.delete(streamId);
    streams.set(streamId, folded);
    return folded as FoldedStream<S>;
  }

  /** Keeps `folded` unless a state of a later revision is kept already. */
  put<S>(decider: Folding<S>, streamId: string, folded: FoldedStream<S>) {
    const streams = this.kept.get(decider);
    if (!streams) return;
    const current = streams.get(streamId);
    if (current && current.revision > folded.revision) return;
    streams.delete(streamId);
    streams.set(streamId, folded as FoldedStream<unknown>);
    if (streams.size > this.limit) streams.delete(streams.keys().next().value as string);
  }
}
