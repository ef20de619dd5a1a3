import { createHash, randomUUID } from 'node:crypto';
import { type EventData, eventCatalogue, personalDataRules, type Role, type SessionUser } from '@agency/contracts';
import { type Decider, DomainError, fold } from '@agency/domain';
import {
  comparePositions,
  describeOnly,
  EventReadError,
  type EventStore,
  forbidden,
  HttpError,
  invalidInput,
  type Position,
  type RecordedEvent,
  WrongExpectedRevision,
} from '@agency/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Claim, ProcessedCommands, StoredAnswer } from './idempotency';
import type { ProjectionWatch } from './projection-watch';
import { catchUpStream, type FoldedStream, foldStream, idKey, type StreamStates } from './stream-states';
import { type CallerViews, type Views, viewsFor } from './views';

/** Each lost race lets another command win, so a few more tries than writers at once land them all. */
const MAX_ATTEMPTS = 8;

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
   * Load the stream, fold, decide, append; retried on a concurrency conflict. Returns the new state.
   * The events get ids derived from (commandId, stream, step, index): when the stream already holds
   * this step's events (a retry of a command that crashed), nothing is decided or appended again and
   * the state just after them is returned.
   */
  run: <C, E extends DomainEvent, S>(streamId: string, decider: Decider<C, E, S>, command: C) => Promise<S>;
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

/** Where a test may make a command fail or stop (a crash is a step that never returns). */
export type FaultStep =
  | { step: 'claimed'; commandId: string }
  | { step: 'appended'; commandId: string; streamId: string }
  | { step: 'handled'; commandId: string }
  | { step: 'recording'; commandId: string };

export type CommandDependencies = {
  store: EventStore;
  processed: ProcessedCommands;
  projections: ProjectionWatch;
  /**
   * The folded states of recently used streams, for the deciders it lists: a command on one of
   * them reads only the events after the kept revision, or none when its append is accepted.
   */
  states?: StreamStates;
  clock: () => Date;
  /** The query side's views a command answers with, called in this process (none in a bare command context). */
  views?: Views;
  /** How far the reactors have got: a command may wait for the follow-up of its events. */
  reactions?: {
    waitFor(
      names: readonly string[],
      position: Position,
      timeoutMs: number,
      types?: readonly string[],
    ): Promise<boolean>;
  };
  /** Fault injection, for tests only: called at each step of a command; may throw or wait. */
  faults?: { at: (fault: FaultStep) => void | Promise<void> };
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

const STATUS_BY_DOMAIN_CODE: Record<DomainError['code'], number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  locked: 409,
};

export function domainToHttp(error: unknown): unknown {
  if (error instanceof DomainError) {
    return new HttpError(STATUS_BY_DOMAIN_CODE[error.code], error.code, error.message, error.fields);
  }
  // An event of the stream it decides on cannot be read (a key or an upcaster is missing): nothing
  // was decided; health and the admin banner name the event.
  if (error instanceof EventReadError) {
    return new HttpError(
      503,
      'unreadable_event',
      'Part of this record cannot be read at the moment, so nothing was changed. The administrator has been told.',
    );
  }
  return error;
}

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
  const run: CommandContext['run'] = async (streamId, decider, command) => {
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
        if (wasCurrent && ++conflicts >= MAX_ATTEMPTS) {
          throw new HttpError(
            409,
            'concurrent_change',
            'Someone else changed this at the same time. Please reload and try again.',
          );
        }
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
      await deps.faults?.at({ step: 'appended', commandId, streamId });
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

export type CommandRoute<S extends z.ZodType, P, A = unknown> = {
  url: string;
  roles: Role[];
  body: S;
  handle: (
    input: { body: z.infer<S>; params: P; query: Record<string, string> },
    context: CommandContext,
  ) => Promise<A>;
  /**
   * A view the spec puts in the answer (the lesson save answers with the week's grid), asked of the
   * query side as the caller once the projections show the command.
   */
  view?: (
    input: { body: z.infer<S>; params: P; query: Record<string, string> },
    answer: A,
    views: CallerViews,
  ) => Promise<object>;
};

const UUID = z.uuid();

/** A header that, when sent, must be one UUID (as `commandId` is): it is stored with every event. */
function uuidHeader(request: FastifyRequest, name: string, label: string): string | undefined {
  const value = request.headers[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !UUID.safeParse(value).success) {
    throw invalidInput([{ path: [label], message: `${label} must be a UUID` }]);
  }
  return value;
}

/**
 * The view a route answers with, asked of the query side in this process as the caller (the same
 * role rules). When the projections lag (`visible: false`) and the view cannot be had yet, the
 * answer goes without it.
 */
async function askView(
  deps: CommandDependencies,
  user: SessionUser,
  view: (views: CallerViews) => Promise<object>,
  visible: boolean,
) {
  if (!deps.views) throw new Error("This app has no query side to answer a command's view.");
  try {
    return await view(viewsFor(deps.views, user));
  } catch (error) {
    if (!visible) return {};
    throw error;
  }
}

/**
 * Every command goes through here: authenticate, check the role, validate the body against its
 * contract (400 and nothing written), claim the commandId for this action, run, wait for the
 * projections to reach what was appended, remember the answer (docs/command-ids.md).
 */
export function commandRoute<S extends z.ZodType, P = Record<string, string>, A = unknown>(
  app: FastifyInstance,
  deps: CommandDependencies,
  route: CommandRoute<S, P, A>,
) {
  // The body's schema describes the route (OpenAPI); the pipeline parses it itself, after the role check.
  // `command`: counted by its outcome in the product's figures (README, "Monitoring").
  // `families`: a route that lists the family role is one a family's session may reach (docs/family-access.md).
  const config = { command: true, families: route.roles.includes('family') };
  const described = { schema: { body: route.body }, validatorCompiler: describeOnly, config };
  app.post(route.url, described, async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await app.authenticate(request);
    if (!route.roles.includes(user.role)) throw forbidden();
    const parsed = route.body.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const headerKey = uuidHeader(request, 'idempotency-key', 'Idempotency-Key');
    const correlation = uuidHeader(request, 'x-correlation-id', 'X-Correlation-Id');
    const { commandId: givenInBody, ...sent } = parsed.data as { commandId?: string };
    const givenId = givenInBody ?? headerKey;
    const commandId = givenId ?? randomUUID();
    const input = { body: parsed.data, params: request.params as P, query: request.query as Record<string, string> };
    /** An answer kept earlier, with the view it names asked again (a view is never kept). */
    const replay = async (kept: StoredAnswer) => {
      const { view } = route;
      const shown = view ? await askView(deps, user, (views) => view(input, kept.answer as A, views), false) : {};
      return reply
        .status(kept.statusCode)
        .send({ ...kept.answer, ...shown, position: kept.position, visible: kept.visible });
    };
    let claim: Claim | undefined;
    if (givenId) {
      // The action the id stands for: the route, its parameters and what it sends.
      const fingerprint = deps.processed.fingerprint(route.url, { params: input.params, query: input.query, sent });
      const claimed = await deps.processed.claim(givenId, user.id, fingerprint, deps.clock());
      if (!claimed.claimed) return replay(claimed.answer);
      claim = claimed;
    }
    const { context, appendedUpTo, readUpTo, appendedTypes, settled, followedUp, subjects } = createCommandContext(
      deps,
      user,
      commandId,
      correlation ?? commandId,
      claim?.startedAt,
    );
    try {
      if (claim) await deps.faults?.at({ step: 'claimed', commandId });
      const answer = await route.handle(input, context);
      const position = appendedUpTo();
      await deps.faults?.at({ step: 'handled', commandId });
      // A view shows what was read too: when that is further than what was appended, it is awaited.
      const seen = route.view || settled() ? readUpTo() : undefined;
      const [upTo, types] =
        seen && (!position || comparePositions(seen.position, position) > 0)
          ? [seen.position, seen.types]
          : [position, appendedTypes()];
      // A projection stopped at an event it cannot apply answers at once: the save is recorded, the lists lag.
      const visible = upTo ? await deps.projections.waitFor(upTo, 5000, types) : true;
      // A view of what a reactor has not made yet (an engagement still being recorded) is answered
      // without, as one the projections have not reached: the command stands, its follow-up is under way.
      const { view } = route;
      const shown = view
        ? await askView(deps, user, (views) => view(input, answer, views), visible && followedUp())
        : {};
      const kept: StoredAnswer = {
        statusCode: 200,
        answer: answer as Record<string, unknown>,
        position: position ? `${position.commit}/${position.prepare}` : null,
        visible,
      };
      const body = { ...kept.answer, ...shown, position: kept.position, visible };
      if (!givenId) return body;
      await deps.faults?.at({ step: 'recording', commandId });
      // A runner that took over a lapsed claim may have answered first: every delivery gets that answer.
      const stands = await deps.processed.complete(givenId, kept, subjects());
      return stands === kept ? reply.status(200).send(body) : replay(stands);
    } catch (error) {
      if (claim) {
        // Once anything is appended the claim stays (a retry completes the command, never repeats it).
        const settle =
          appendedUpTo() || claim.takenOver
            ? deps.processed.endLease(commandId, claim.owner)
            : deps.processed.release(commandId, claim.owner);
        await settle.catch(() => {});
      }
      throw domainToHttp(error);
    }
  });
}
