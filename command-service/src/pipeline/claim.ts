import type { SessionUser } from '@agency/contracts';
import type { CommandDependencies } from './dependencies';
import type { Claim, StoredAnswer } from './idempotency';

/**
 * Idempotency (docs/command-ids.md): a command id given by the caller is claimed for one action
 * (the route, its parameters and what it sends) before anything runs. A repeat of that action
 * gets the answer kept for it; the same id for another action is refused.
 */
export async function claimCommandId(
  deps: CommandDependencies,
  givenId: string,
  user: SessionUser,
  action: { route: string; params: unknown; query: unknown; sent: unknown },
): Promise<{ claim: Claim } | { earlier: StoredAnswer }> {
  const { route, ...what } = action;
  const claimed = await deps.processed.claim(givenId, user.id, deps.processed.fingerprint(route, what), deps.clock());
  return claimed.claimed ? { claim: claimed } : { earlier: claimed.answer };
}

/**
 * Keeps the answer under the command id: what stands is returned (a runner that took over a lapsed
 * claim may have answered first: every delivery gets that answer).
 */
export function keepAnswer(deps: CommandDependencies, givenId: string, kept: StoredAnswer, subjects: string[]) {
  return deps.processed.complete(givenId, kept, subjects);
}

/**
 * A command that failed lets its claim go: released when it appended nothing (a retry runs it
 * afresh), only its lease ended once anything is appended (a retry completes it, never repeats it).
 */
export async function letClaimGo(deps: CommandDependencies, commandId: string, claim: Claim, appended: boolean) {
  const settle =
    appended || claim.takenOver
      ? deps.processed.endLease(commandId, claim.owner)
      : deps.processed.release(commandId, claim.owner);
  await settle.catch(() => {});
}
