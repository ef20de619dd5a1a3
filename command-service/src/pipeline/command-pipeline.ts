/**
 * The command pipeline, one module per job:
 * - `command-route.ts`: the HTTP route (auth, role, body, headers) that runs the jobs below in order;
 * - `claim.ts`: idempotency, the command id claimed for one action and its answer kept;
 * - `command-context.ts`: deciding and appending on one stream at a time, with derived event ids;
 * - `conflicts.ts`: the one typed conflict error and its retry policy;
 * - `read-your-writes.ts`: the wait for the projections to show the command;
 * - `answer.ts`: the answer (a view asked in-process, refusals as HTTP errors).
 */
export { askView, domainToHttp } from './answer';
export { type CommandContext, createCommandContext, derivedId } from './command-context';
export { type CommandRoute, commandRoute } from './command-route';
export { CONFLICT_ATTEMPTS, ConcurrentChange, type Contention } from './conflicts';
export type { CommandDependencies } from './dependencies';
export { requireReadModelsCaughtUp } from './read-your-writes';
