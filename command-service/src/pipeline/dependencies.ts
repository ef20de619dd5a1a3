import type { EventStore, Position } from '@agency/platform';
import type { ProcessedCommands } from './idempotency';
import type { ProjectionWatch } from './projection-watch';
import type { StreamStates } from './stream-states';
import type { Views } from './views';

/** What the command pipeline works with: the store, the kept answers, the projections' and reactors' progress. */
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
};
