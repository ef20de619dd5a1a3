import { randomUUID } from 'node:crypto';
import type { Role } from '@agency/contracts';
import { describeOnly, forbidden, invalidInput } from '@agency/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { faultPoint } from '../race-points';
import { askView, domainToHttp } from './answer';
import { claimCommandId, keepAnswer, letClaimGo } from './claim';
import { type CommandContext, createCommandContext } from './command-context';
import type { CommandDependencies } from './dependencies';
import type { Claim, StoredAnswer } from './idempotency';
import { awaitProjections } from './read-your-writes';
import type { CallerViews } from './views';

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
    const { view } = route;
    /** The view the route names for an answer, asked now (a view is never kept). */
    const viewOf = async (answer: A, viewVisible: boolean): Promise<object> =>
      view ? askView(deps, user, (views) => view(input, answer, views), viewVisible) : {};
    const answerWith = (kept: StoredAnswer, shown: object) =>
      reply.status(kept.statusCode).send({ ...kept.answer, ...shown, position: kept.position, visible: kept.visible });
    /** The answer with the view it names. */
    const send = async (kept: StoredAnswer, answer: A, viewVisible: boolean) =>
      answerWith(kept, await viewOf(answer, viewVisible));
    let claim: Claim | undefined;
    if (givenId) {
      const claimed = await claimCommandId(deps, givenId, user, { route: route.url, ...input, sent });
      if ('earlier' in claimed) return send(claimed.earlier, claimed.earlier.answer as A, false);
      claim = claimed.claim;
    }
    const made = createCommandContext(deps, user, commandId, correlation ?? commandId, claim?.startedAt);
    try {
      if (claim) await faultPoint({ step: 'claimed', commandId });
      const answer = await route.handle(input, made.context);
      const position = made.appendedUpTo();
      await faultPoint({ step: 'handled', commandId });
      const visible = await awaitProjections(deps, made, Boolean(view) || made.settled());
      const kept: StoredAnswer = {
        statusCode: 200,
        answer: answer as Record<string, unknown>,
        position: position ? `${position.commit}/${position.prepare}` : null,
        visible,
      };
      // A view of what a reactor has not made yet (an engagement still being recorded) is answered
      // without, as one the projections have not reached: the command stands, its follow-up is under way.
      if (!givenId) return send(kept, answer, visible && made.followedUp());
      await faultPoint({ step: 'recording', commandId });
      // The view is read while the answer is recorded (two round trips at once, not one after
      // the other); it is asked again for the answer that stands in the rare case another
      // runner's was recorded first.
      const viewing = viewOf(answer, visible && made.followedUp());
      viewing.catch(() => {});
      const stands = await keepAnswer(deps, givenId, kept, made.subjects());
      return stands === kept ? answerWith(kept, await viewing) : send(stands, stands.answer as A, false);
    } catch (error) {
      if (claim) await letClaimGo(deps, commandId, claim, Boolean(made.appendedUpTo()));
      throw domainToHttp(error);
    }
  });
}
