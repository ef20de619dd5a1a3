import { comparePositions, type Position } from '@agency/platform';
import type { CommandDependencies } from './dependencies';

/** What a command's context saw: what it appended and what it read (see `createCommandContext`). */
type Seen = {
  appendedUpTo: () => Position | undefined;
  appendedTypes: () => string[] | undefined;
  readUpTo: () => { position: Position; types: string[] | undefined } | undefined;
};

/**
 * Read-your-writes: waits (bounded) until the projections show what the command appended, so the
 * next GET sees it. An answer that shows more than the command wrote (a view, or what reactors it
 * waited for made) waits for what it read too, when that is further. false: a projection is
 * stopped at an event it cannot apply or slow; the command stands and the lists lag.
 */
export async function awaitProjections(deps: CommandDependencies, seen: Seen, showsWhatItRead: boolean) {
  const position = seen.appendedUpTo();
  const read = showsWhatItRead ? seen.readUpTo() : undefined;
  const [upTo, types] =
    read && (!position || comparePositions(read.position, position) > 0)
      ? [read.position, read.types]
      : [position, seen.appendedTypes()];
  return upTo ? await deps.projections.waitFor(upTo, 5000, types) : true;
}
