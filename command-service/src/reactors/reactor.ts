import type { SessionUser } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import {
  type CommandContext,
  type CommandDependencies,
  createCommandContext,
  derivedId,
} from '../pipeline/command-pipeline';

/**
 * What follows from an event, on other streams or outside the system (an e-mail): a reactor.
 * It follows `$all` from its own checkpoint; for each event of the types it handles it issues
 * commands through `act(key)`, whose command id derives from the event's id and that business key
 * (an invoice id, a registration id), so a reactor that crashed half-way and runs the event again
 * repeats nothing it already did and completes the rest. An error stops the reactor at that event
 * (never skipped): it is retried with backoff and reported (docs/reactors.md).
 */
export type Reactor = {
  /** Its checkpoint's name: never renamed (a new name starts again at the head of the log). */
  name: string;
  /** The event types it reacts to; the others only move its checkpoint. */
  handles: readonly string[];
  react: (event: RecordedEvent, act: (key: string) => CommandContext) => Promise<void>;
};

/** Who a reactor's commands are recorded as: the person whose event caused them, as the system. */
export function reactorUser(event: RecordedEvent): SessionUser {
  const { userId, role } = event.metadata;
  return { id: userId, username: 'system', role: role as SessionUser['role'] };
}

/**
 * The command context for one step of a reaction: the command id derives from the reactor, the
 * event and `key`; the time is the event's, so a re-run decides exactly as the first run did;
 * the events it appends name the triggering event as their cause and keep its correlation id.
 */
export function reactionContext(
  deps: CommandDependencies,
  reactor: string,
  event: RecordedEvent,
  key: string,
): CommandContext {
  const commandId = derivedId('reaction', reactor, event.id, key);
  return createCommandContext(deps, reactorUser(event), commandId, event.metadata.correlationId, {
    startedAt: new Date(event.metadata.recordedAt),
    causationId: event.id,
  }).context;
}
