import { createHash } from 'node:crypto';
import { type EventData, eventCatalogue, personalDataRules, type SessionUser } from '@agency/contracts';
import { type Decider, fold } from '@agency/domain';
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
  WrongExpectedRevision,
} from '@agency/platform';
import { faultPoint } from '../race-points';
import { CONFLICT_ATTEMPTS, ConcurrentChange, type Contention } from './conflicts';
import type { CommandDependencies } from './dependencies';
import { catchUpStream, type FoldedStream, foldStream, idKey } from './stream-states';

type DomainEvent = { type: string; data: unknown };

export type CommandContext = {
  user: SessionUser;
  commandId: string;
  now: Date;
  /**
   * A new entity id. It derives from the command id, so a retry of the command (after a crash or
   * a failure) names the same entity and finds what the first run already appended.
   */
  newId: () => string;
  /**
   * Load the stream, fold, decide, append; decided again on a concurrency conflict, as the retry
   * policy allows (then `ConcurrentChange`). Returns the new state.
   * The events get ids derived from (commandId, stream, step, index): when the stream already holds
   * this step's events (a retry of a command that crashed), nothing is decided or appended again and
   * the state just after them is returned.
   */
  run: <C, E extends DomainEvent, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    command: C,
    /** How many times it is decided again when other writers win the stream (`CONFLICT_ATTEMPTS`). */
    contention?: Contention,
  ) => Promise<S>;
  /** Read a stream's current state without deciding anything. */
  load: <E extends DomainEvent, S>(
    streamId: string,
    decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
  ) => Promise<S>;
  /**
   * Waits (boundedly) until the named reactors have reacted to what this command appended, so
   * the answer can say what they did; what is loaded after it is awaited on the read side too.
   * false: not yet (a reactor is stopped or slow): the follow-up is under way.
   */
  settle: (reactors: readonly string[]) => Promise<boolean>;
};

/** A name-based (version 5 style, SHA-1) UUID: the same name always gives the same id. */
export function derivedId(...parts: (string | number)[]): string {
  const hash = createHash('sha1').update(parts.join('\u0000')).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The events a step appended, when the stream holds them (else none). */
function stepAppended(recorded: RecordedEvent[], idOf: (index: number) => string): RecordedEvent[] {
  const first = idOf(0);
  const start = recorded.findIndex((event) => event.id.toLowerCase() === first);
  if (start < 0) return [];
  let last = start;
  while (recorded[last + 1]?.id.toLowerCase() === idOf(last + 1 - start)) last++;
  return recorded.slice(start, last + 1);
}

/**
 * Deciding and appending: what a command's handler (or a reactor's step) works through. Each `run`
 * decides on one stream and appends at the revision it read, with event ids derived from the
 * command so a re-run finds its own events; what it appended and read is kept for the wait on the
 * projections and for the answer.
 */
export function createCommandContext(
  deps: CommandDependencies,
  user: SessionUser,
  commandId: string,
  correlationId: string,
  /** `startedAt`: a retry's first run's time; `causationId`: the event that caused it (a reactor's step). */
  options: Date | { startedAt?: Date; causationId?: string } = {},
) {
  const { startedAt, causationId = commandId } = options instanceof Date ? { startedAt: options } : options;
  let furthest: Position | undefined;
  // The event types appended, so the wait concerns only the projections that handle them
  // (unknown when a retry found a step appended by an earlier run: then every projection).
  let appendedTypes: Set<string> | undefined = new Set<string>();
  const reached = (position: Position, types?: string[]) => {
    if (!furthest || comparePositions(position, furthest) > 0) furthest = position;
    if (types) for (const type of types) appendedTypes?.add(type);
    else appendedTypes = undefined;
  };
  // The furthest event read: a view asked after a command that appended nothing (a repeat, or
  // the loser of a race) must show what the command saw, so the wait covers it too.
  let furthestRead: Position | undefined;
  const readTypes = new Set<string>();
  const read = ({ last, types }: Pick<FoldedStream<unknown>, 'last' | 'types'>) => {
    if (last && (!furthestRead || comparePositions(last, furthestRead) > 0)) furthestRead = last;
    for (const type of types) readTypes.add(type);
  };
  // Whose personal data the command's own events hold (docs/personal-data.md): its kept answer is
  // sealed under their keys (docs/command-ids.md).
  const subjects = new Set<string>();
  const recordedFor = (events: readonly DomainEvent[]) => {
    for (const { type, data } of events) {
      const rule = personalDataRules[type];
      if (rule?.fields.length) subjects.add(rule.subjectOf(data as EventData));
    }
  };
  // A retry decides with the time of the first run, so it gives the same answer.
  const now = startedAt ?? deps.clock();
  let idsGiven = 0;
  const newId = () => derivedId(commandId, 'id', idsGiven++);
  const steps = new Map<string, number>();
  /** The kept states of this decider's streams, when they are kept. */
  const keptFor = (decider: object) => (deps.states?.keeps(decider) ? deps.states : undefined);
  const load: CommandContext['load'] = async (streamId, decider) => {
    const states = keptFor(decider);
    const kept = states?.get(decider, streamId);
    const folded =
      (kept && (await catchUpStream(deps.store, streamId, decider, kept))) ??
      foldStream(decider, await deps.store.readStream(streamId));
    states?.put(decider, streamId, folded);
    read(folded);
    return folded.state;
  };
  const run: CommandContext['run'] = async (streamId, decider, command, contention = 'usual') => {
    const step = steps.get(streamId) ?? 0;
    steps.set(streamId, step + 1);
    const idOf = (index: number) => derivedId(commandId, streamId, step, index);
    const firstKey = idKey(idOf(0));
    const foldUpTo = (recorded: RecordedEvent[], end: number) =>
      fold(
        decider,
        recorded.slice(0, end).map((e) => ({ type: e.type, data: e.data }) as never),
      );
    const states = keptFor(decider);
    // What the command decides on: a kept state (not yet known to be current) or one read now.
    let folded = states?.get(decider, streamId);
    let current = false;
    const keep = (next: FoldedStream<ReturnType<typeof decider.initialState>> | undefined) => {
      folded = next;
      current = true;
      if (next) states?.put(decider, streamId, next);
    };
    let reread: RecordedEvent[] | undefined;
    let conflicts = 0;
    for (;;) {
      // Read whole when nothing is kept, or when the stream may hold this step's events already.
      if (!folded || folded.idKeys.has(firstKey)) {
        const recorded = reread ?? (await deps.store.readStream(streamId));
        reread = undefined;
        const done = stepAppended(recorded, idOf);
        const last = done.at(-1);
        if (last) {
          // An earlier run of this command appended this step already: it is not decided again.
          reached(last.position);
          recordedFor(done);
          return foldUpTo(recorded, recorded.indexOf(last) + 1);
        }
        keep(foldStream(decider, recorded));
      }
      const basis = folded as FoldedStream<ReturnType<typeof decider.initialState>>;
      // Only an append is checked by the store: any other outcome of a kept state is confirmed
      // against the events after it (and decided again when there are some).
      const confirm = async () => keep(await catchUpStream(deps.store, streamId, decider, basis));
      let events: ReturnType<typeof decider.decide>;
      try {
        events = decider.decide(command, basis.state, now);
      } catch (error) {
        if (current) throw error;
        await confirm();
        continue;
      }
      if (events.length === 0) {
        if (!current) {
          await confirm();
          continue;
        }
        read(basis);
        return basis.state;
      }
      const wasCurrent = current;
      let result: Awaited<ReturnType<EventStore['appendToStream']>>;
      try {
        result = await deps.store.appendToStream(
          streamId,
          events.map((event, index) => ({
            id: idOf(index),
            type: event.type,
            data: event.data as Record<string, unknown>,
            metadata: {
              userId: user.id,
              role: user.role,
              commandId,
              correlationId,
              causationId,
              schemaVersion: eventCatalogue.get(event.type)?.version ?? 1,
            },
          })),
          { expectedRevision: basis.revision < 0 ? 'no_stream' : basis.revision },
        );
      } catch (error) {
        // Another runner of this command (one that took over a lapsed claim, or the one it took
        // over from) may have appended these very events: reading the stream again finds them.
        const after = await catchUpStream(deps.store, streamId, decider, basis).catch(() => null);
        if (!after || after.idKeys.has(firstKey)) {
          const again = await deps.store.readStream(streamId).catch(() => undefined);
          folded = undefined;
          reread = again;
          if (again && stepAppended(again, idOf).length > 0) continue;
        } else keep(after);
        if (!(error instanceof WrongExpectedRevision)) throw error;
        // A kept state the stream has moved past is no conflict with anyone: only refusals of a
        // state read in this run count.
        if (wasCurrent && ++conflicts >= CONFLICT_ATTEMPTS[contention]) throw new ConcurrentChange(streamId, conflicts);
        continue;
      }
      reached(
        result.position,
        events.map((event) => event.type),
      );
      recordedFor(events);
      const state = events.reduce(decider.evolve, basis.state);
      if (states) {
        // Kept as a reader would fold it: the payloads as stored (JSON), not the objects decided.
        const stored = events.map((event, index) => ({
          id: idOf(index),
          revision: basis.revision + 1 + index,
          position: result.position,
          type: event.type,
          data: JSON.parse(JSON.stringify(event.data)),
        }));
        states.put(decider, streamId, foldStream(decider, stored as RecordedEvent[], basis));
      }
      await faultPoint({ step: 'appended', commandId, streamId });
      return state;
    }
  };
  let settled = false;
  let followedUp = true;
  let awaitsEveryProjection = false;
  const settle: CommandContext['settle'] = async (reactors) => {
    settled = true;
    const done = await waitForReactors(reactors);
    if (!done) followedUp = false;
    else {
      // What the reactors appended lies at or before the head of the log now: the answer waits for
      // every projection to show it (their events' types are not known here).
      read({ last: await deps.store.head(), types: new Set<string>() });
      awaitsEveryProjection = true;
    }
    return done;
  };
  const waitForReactors = async (reactors: readonly string[]) => {
    // What it appended, or what it read after an earlier wait (a document a reactor issued).
    const upTo = furthestRead && (!furthest || comparePositions(furthestRead, furthest) > 0) ? furthestRead : furthest;
    if (!upTo) return true;
    // Only reactors that handle a type it appended or read have anything to do for it.
    const types = appendedTypes && [...appendedTypes, ...readTypes];
    return (await deps.reactions?.waitFor(reactors, upTo, 5000, types)) ?? false;
  };
  return {
    context: { user, commandId, now, newId, run, load, settle } satisfies CommandContext,
    /** Whether the command waited for reactors (what it read after that is awaited too). */
    settled: () => settled,
    /** false when a reactor it waited for had not finished: a view of what follows may not exist yet. */
    followedUp: () => followedUp,
    appendedUpTo: () => furthest,
    /** The furthest event read, and every type read (with the appended ones: unknown when they are). */
    readUpTo: () =>
      furthestRead && {
        position: furthestRead,
        types: awaitsEveryProjection ? undefined : appendedTypes && [...appendedTypes, ...readTypes],
      },
    appendedTypes: () => (appendedTypes ? [...appendedTypes] : undefined),
    /** Whose personal data the command's own events hold. */
    subjects: () => [...subjects],
  };
}
