import { comparePositions, HttpError, type Position } from '@agency/platform';
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

/**
 * A decision that finds its candidates in read models (the rest it reads from streams) waits,
 * bounded, until those of `types` show everything recorded so far: one taken from read models
 * that lag could miss or repeat a candidate for good. While they cannot (a projection stopped or
 * slower than the bound) it is refused with 503 `under_way` before anything is written, and a
 * retry decides again.
 */
export async function requireReadModelsCaughtUp(deps: CommandDependencies, types: string[], message: string) {
  if (!(await deps.projections.waitFor(await deps.store.head(), 5000, types))) {
    throw new HttpError(503, 'under_way', message);
  }
}
