import { randomUUID } from 'node:crypto';
import { eventCatalogue, type Role, type SessionUser } from '@agency/contracts';
import { type Decider, DomainError, fold } from '@agency/domain';
import {
  comparePositions,
  type EventStore,
  forbidden,
  HttpError,
  invalidInput,
  type Position,
  WrongExpectedRevision,
} from '@agency/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ProcessedCommands } from './idempotency';
import type { ProjectionWatch } from './projection-watch';

const MAX_ATTEMPTS = 4;

type DomainEvent = { type: string; data: unknown };

export type CommandContext = {
  user: SessionUser;
  commandId: string;
  now: Date;
  /** Load the stream, fold, decide, append; retried on a concurrency conflict. Returns the new state. */
  run: <C, E extends DomainEvent, S>(streamId: string, decider: Decider<C, E, S>, command: C) => Promise<S>;
  /** Read a stream's current state without deciding anything. */
  load: <E extends DomainEvent, S>(
    streamId: string,
    decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
  ) => Promise<S>;
};

export type CommandDependencies = {
  store: EventStore;
  processed: ProcessedCommands;
  projections: ProjectionWatch;
  clock: () => Date;
};

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
  return error;
}

export function createCommandContext(
  deps: CommandDependencies,
  user: SessionUser,
  commandId: string,
  correlationId: string,
) {
  let furthest: Position | undefined;
  const now = deps.clock();
  const load: CommandContext['load'] = async (streamId, decider) => {
    const recorded = await deps.store.readStream(streamId);
    return fold(
      decider,
      recorded.map((e) => ({ type: e.type, data: e.data }) as never),
    );
  };
  const run: CommandContext['run'] = async (streamId, decider, command) => {
    for (let attempt = 1; ; attempt++) {
      const recorded = await deps.store.readStream(streamId);
      const state = fold(
        decider,
        recorded.map((e) => ({ type: e.type, data: e.data }) as never),
      );
      const events = decider.decide(command, state, now);
      if (events.length === 0) return state;
      try {
        const result = await deps.store.appendToStream(
          streamId,
          events.map((event) => ({
            type: event.type,
            data: event.data as Record<string, unknown>,
            metadata: {
              userId: user.id,
              role: user.role,
              commandId,
              correlationId,
              causationId: commandId,
              schemaVersion: eventCatalogue.get(event.type)?.version ?? 1,
            },
          })),
          { expectedRevision: recorded.length === 0 ? 'no_stream' : recorded.length - 1 },
        );
        if (!furthest || comparePositions(result.position, furthest) > 0) furthest = result.position;
        return events.reduce(decider.evolve, state);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
        if (attempt >= MAX_ATTEMPTS) {
          throw new HttpError(
            409,
            'concurrent_change',
            'Someone else changed this at the same time. Please reload and try again.',
          );
        }
      }
    }
  };
  return { context: { user, commandId, now, run, load } satisfies CommandContext, appendedUpTo: () => furthest };
}

export type CommandRoute<S extends z.ZodType, P> = {
  url: string;
  roles: Role[];
  body: S;
  handle: (
    input: { body: z.infer<S>; params: P; query: Record<string, string> },
    context: CommandContext,
  ) => Promise<unknown>;
};

/**
 * Every command goes through here: authenticate, check the role, validate the body against its
 * contract (400 and nothing written), claim the commandId, run, wait for the projections to
 * reach what was appended, remember the answer.
 */
export function commandRoute<S extends z.ZodType, P = Record<string, string>>(
  app: FastifyInstance,
  deps: CommandDependencies,
  route: CommandRoute<S, P>,
) {
  app.post(route.url, async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await app.authenticate(request);
    if (!route.roles.includes(user.role)) throw forbidden();
    const parsed = route.body.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const headerKey = request.headers['idempotency-key'];
    const givenId =
      (parsed.data as { commandId?: string }).commandId ?? (typeof headerKey === 'string' ? headerKey : undefined);
    const commandId = givenId ?? randomUUID();
    if (givenId) {
      const claim = await deps.processed.claim(givenId, user.id);
      if (!claim.claimed) return reply.status(claim.answer.statusCode).send(claim.answer.body);
    }
    const correlation = request.headers['x-correlation-id'];
    const { context, appendedUpTo } = createCommandContext(
      deps,
      user,
      commandId,
      typeof correlation === 'string' ? correlation : commandId,
    );
    try {
      const answer = (await route.handle(
        { body: parsed.data, params: request.params as P, query: request.query as Record<string, string> },
        context,
      )) as Record<string, unknown>;
      const position = appendedUpTo();
      if (position) await deps.projections.waitFor(position);
      const body = { ...answer, position: position ? `${position.commit}/${position.prepare}` : null };
      if (givenId) await deps.processed.complete(givenId, { statusCode: 200, body });
      return body;
    } catch (error) {
      if (givenId) await deps.processed.release(givenId);
      throw domainToHttp(error);
    }
  });
}
